// Qt Test capture project (issue 46): a bounded job queue with failing tests.
#include <QtTest>
#include <QStringList>

class JobQueue {
public:
    explicit JobQueue(int cap) : cap_(cap) {}
    bool push(const QString &job) { if (jobs_.size() > cap_) return false; jobs_ << job; return true; }
    QString pop() { return jobs_.isEmpty() ? QString() : jobs_.takeLast(); }
    int size() const { return jobs_.size(); }
    QStringList names() const { return jobs_; }
private:
    int cap_;
    QStringList jobs_;
};

class TestQueue : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {}
    void fifoOrder() {
        JobQueue q(4);
        q.push("build"); q.push("deploy");
        QCOMPARE(q.pop(), QString("build"));
    }
    void capacity() {
        JobQueue q(2);
        q.push("a"); q.push("b");
        QVERIFY2(!q.push("c"), "a full queue must refuse a third job");
    }
    void sizeAfterPush() { JobQueue q(3); q.push("x"); QCOMPARE(q.size(), 1); }
    void listing() {
        JobQueue q(3);
        q.push("lint"); q.push("test");
        QCOMPARE(q.names(), QStringList({"test", "lint"}));
    }
    void emptyPop() { JobQueue q(1); QVERIFY(!q.pop().isNull()); }
    void cleanupTestCase() {}
};

QTEST_APPLESS_MAIN(TestQueue)
#include "tst_queue.moc"
