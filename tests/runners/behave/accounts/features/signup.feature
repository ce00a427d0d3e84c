Feature: Sign-up
  Scenario: Valid email
    Given the signup form
    When I enter email "ada@example.org"
    Then the form is accepted

  Scenario: Email with plus sign
    Given the signup form
    When I enter email "ada+news@example.org"
    Then the form is accepted

  Scenario: Password rules are all listed
    Given the signup form
    When I enter password "abc"
    Then I see every password problem
