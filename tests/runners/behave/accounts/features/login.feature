Feature: Login
  Scenario: Locked account
    Given a user "grace" locked after 3 failed attempts
    When "grace" logs in with the right password
    Then the login is refused with "account locked"

  Scenario: Normal login
    Given a user "alan"
    When "alan" logs in with the right password
    Then the login succeeds
