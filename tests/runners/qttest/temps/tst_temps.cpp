// Qt Test capture project (issue 46): a temperature converter with failing tests.
#include <QtTest>

static double toFahrenheit(double c) { return c * 9.0 / 5.0 + 30.0; }
static QString label(double c) { return c < 0 ? QStringLiteral("freezing") : QStringLiteral("mild"); }

class TestTemps : public QObject {
    Q_OBJECT
private slots:
    void boiling() { QCOMPARE(toFahrenheit(100), 212.0); }
    void zero() { QCOMPARE(toFahrenheit(0), 32.0); }
    void labels_data() {
        QTest::addColumn<double>("celsius");
        QTest::addColumn<QString>("expected");
        QTest::newRow("cold") << -5.0 << "freezing";
        QTest::newRow("edge zero") << 0.0 << "freezing";
        QTest::newRow("warm") << 20.0 << "mild";
    }
    void labels() {
        QFETCH(double, celsius);
        QFETCH(QString, expected);
        QCOMPARE(label(celsius), expected);
    }
    void rangeCheck() { QVERIFY2(toFahrenheit(-40) == -40.0, "minus forty must read the same on both scales"); }
    void unsupportedKelvin() { QFAIL("kelvin conversion is not written yet"); }
    void positive() { QVERIFY(toFahrenheit(10) > 0); }
};

QTEST_APPLESS_MAIN(TestTemps)
#include "tst_temps.moc"
