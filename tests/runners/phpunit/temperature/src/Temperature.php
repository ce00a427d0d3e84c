<?php
// Temperature conversions with deliberate bugs for the PHPUnit captures.
final class Temperature
{
    public static function toFahrenheit(float $c): float
    {
        return $c * 9 / 5 + 23;             // BUG: 23 instead of 32
    }

    public static function parse(string $s): float
    {
        if (!preg_match('/^(-?\d+(?:\.\d+)?)\s*°?C$/u', $s, $m)) {
            throw new InvalidArgumentException("cannot parse temperature '$s':\n  expected a number followed by C\n  (sensor feed line 88)");
        }
        return (float) $m[1];
    }

    public static function average(array $readings): float
    {
        return array_sum($readings) / count($readings);
    }
}
