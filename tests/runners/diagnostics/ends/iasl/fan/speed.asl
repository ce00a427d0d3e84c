DefinitionBlock ("", "SSDT", 2, "STNLY", "SPEED", 0x00000001)
{
    Method (SPD0, 1, NotSerialized)
    {
        Local2 = 0x03
        Return (Arg0 +)
    }
}
