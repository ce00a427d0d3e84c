import re

from behave import given, then, when

EMAIL = re.compile(r"^[a-z]+@[a-z.]+$")   # BUG: no plus sign


@given("the signup form")
def step_form(context):
    context.errors = []


@when('I enter email "{email}"')
def step_email(context, email):
    if not EMAIL.match(email):
        context.errors.append(f"email {email} rejected by pattern")


@when('I enter password "{pw}"')
def step_password(context, pw):
    problems = []
    if len(pw) < 8:
        problems.append("- at least 8 characters")
    if not re.search(r"\d", pw):
        problems.append("- at least one digit")
    context.password_problems = problems


@then("the form is accepted")
def step_accepted(context):
    assert not context.errors, "; ".join(context.errors)


@then("I see every password problem")
def step_problems(context):
    if context.password_problems:
        raise ValueError("password rejected:\n" + "\n".join(context.password_problems))


@given('a user "{name}" locked after {n:d} failed attempts')
def step_locked(context, name, n):
    context.locked = {name: n}


@given('a user "{name}"')
def step_user(context, name):
    context.locked = {}


@when('"{name}" logs in with the right password')
def step_login(context, name):
    context.result = "ok"          # BUG: lock not checked


@then('the login is refused with "{why}"')
def step_refused(context, why):
    assert context.result == why, f"login result {context.result!r}, wanted {why!r}"


@then("the login succeeds")
def step_ok(context):
    assert context.result == "ok"
