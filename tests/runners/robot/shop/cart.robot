*** Settings ***
Library    Collections
Library    ./ShopLibrary.py

*** Test Cases ***
Total Of Two Items
    ${total}=    Cart Total    ${3}    ${4}
    Should Be Equal As Integers    ${total}    ${7}    msg=cart total 8 instead of 7

Discount Applies
    ${price}=    Apply Discount    ${100}    ${10}
    Should Be Equal As Numbers    ${price}    ${90}

Empty Cart Is Empty
    ${items}=    Create List
    Length Should Be    ${items}    0

Coupon Code Is Known
    ${codes}=    Create List    SPRING    SUMMER
    Should Contain    ${codes}    WINTER25

Checkout Raises
    Checkout    card-4242
