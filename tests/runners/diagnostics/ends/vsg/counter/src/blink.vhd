library ieee;
use ieee.std_logic_1164.all;

entity blink is
  port (clk : in std_logic; led : out std_logic);
end entity blink;

architecture rtl of blink is
  signal state : std_logic := '0';
begin
  toggle : process (clk) is
  begin
    if rising_edge(clk) then
      state <= not state;
    end if;
  end process toggle;
  led <= state;
end architecture rtl;
