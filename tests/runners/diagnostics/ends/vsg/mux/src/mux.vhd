library ieee;
use ieee.std_logic_1164.all;

entity mux is
  port (
    a, b : in std_logic;
    sel  : in std_logic;
    y    : out std_logic
  );
end mux;

architecture behav of mux is
begin
  process (a, b, sel)
  begin
    if sel = '0' then y <= a;
    else y <= b;
    end if;
  end process;
end behav;
