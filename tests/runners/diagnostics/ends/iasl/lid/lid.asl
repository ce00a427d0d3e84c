DefinitionBlock ("", "SSDT", 2, "STNLY", "LID", 0x00000001)
{
    Scope (\_SB)
    {
        Device (LID0)
        {
            Name (_HID, EisaId ("PNP0C0D"))
            Method (_LID, 0, NotSerialized)
            {
                Local1 = 0x01
                Return (MISS)
            }
        }
    }
}
