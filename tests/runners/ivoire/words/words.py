"""Word helpers with deliberate bugs, specified with Ivoire."""


def title(s):
    return s.capitalize()


def count(s):
    return len(s.split(" "))


def initials(name):
    return "".join(p[0] for p in name.split(" ")).upper()
