DefinitionBlock ("", "SSDT", 2, "STNLY", "FAN", 0x00000001)
{
    Scope (\_SB)
    {
        Device (FAN0)
        {
            Name (_HID, EisaId ("PNP0C0B"))
            Name (_HID, 0x01)
            Method (_STA, 0, NotSerialized)
            {
                Local0 = 0x0F
            }
        }
    }
}
