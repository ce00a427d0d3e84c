<?php
// URL slugs with deliberate bugs for the PHPUnit captures.
final class Slugger
{
    public static function slug(string $s): string
    {
        $s = strtolower($s);                             // BUG: not multibyte-aware
        return trim(preg_replace('/[^a-z0-9]+/', '-', $s), '-');
    }

    public static function unique(string $slug, array $taken): string
    {
        $n = 1;
        while (in_array($slug, $taken, true)) {
            $slug = $slug . '-' . $n++;                  // BUG: suffixes pile up
        }
        return $slug;
    }
}
