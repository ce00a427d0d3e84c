<?php
use PHPUnit\Framework\TestCase;

final class TemperatureTest extends TestCase
{
    public function testBoiling(): void
    {
        $this->assertSame(212.0, Temperature::toFahrenheit(100), 'boiling point in fahrenheit');
    }

    public function testParsesCelsius(): void
    {
        $this->assertSame(21.5, Temperature::parse('21.5 °C'));
    }

    public function testParsesKelvinIsRejectedNicely(): void
    {
        $this->assertSame(0.0, Temperature::parse('273 K'));
    }

    /** @dataProvider averages */
    public function testAverage(array $r, float $expected): void
    {
        $this->assertEqualsWithDelta($expected, Temperature::average($r), 0.01);
    }

    public static function averages(): array
    {
        return ['two readings' => [[10, 20], 15.0], 'no readings' => [[], 0.0]];
    }
}
