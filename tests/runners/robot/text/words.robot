*** Settings ***
Library    String

*** Test Cases ***
Upper Case Greeting
    ${s}=    Convert To Upper Case    hello
    Should Be Equal    ${s}    HELLO WORLD

Word Count
    @{words}=    Split String    one two three
    Length Should Be    ${words}    4

Starts With Prefix
    Should Start With    stanley-daemon    robot-

Trimmed Input
    ${s}=    Strip String    ${SPACE}padded${SPACE}
    Should Be Equal    ${s}    padded

Numbers Compare
    Should Be True    ${41} > ${42}    msg=forty-one is not above forty-two
