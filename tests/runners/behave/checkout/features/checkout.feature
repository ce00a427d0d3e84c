Feature: Checkout
  A customer pays for the items in the cart.

  Background:
    Given an empty cart

  Scenario: Single item
    When I add 2 "tea" at 3.50
    Then the total is 7.00

  Scenario: Voucher applied once
    When I add 1 "kettle" at 40.00
    And I apply voucher "WELCOME5" twice
    Then the total is 35.00

  Scenario Outline: Shipping by country
    When I ship to "<country>"
    Then shipping costs <cost>

    Examples:
      | country | cost |
      | FR      | 5.00 |
      | NZ      | 25.00 |

  Scenario: Gift wrap
    When I add 1 "mug" at 9.00
    And I ask for gift wrap
    Then the total is 11.00
