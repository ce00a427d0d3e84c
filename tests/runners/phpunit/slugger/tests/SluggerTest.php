<?php
use PHPUnit\Framework\TestCase;

final class SluggerTest extends TestCase
{
    public function testAscii(): void
    {
        $this->assertSame('hello-world', Slugger::slug('Hello, World!'));
    }

    public function testAccents(): void
    {
        $this->assertSame('creme-brulee', Slugger::slug('Crème Brûlée'));
    }

    public function testUniqueSuffix(): void
    {
        $this->assertSame('post-2', Slugger::unique('post', ['post', 'post-1']));
    }

    public function testTakenList(): void
    {
        $this->assertEquals(['a', 'b', 'c'], ['a', 'c', 'b'], 'taken slugs must stay sorted');
    }

    public function testIncomplete(): void
    {
        $this->markTestIncomplete('transliteration table not written');
    }
}
