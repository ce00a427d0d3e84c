"""A client with deliberate misspellings (issue 46 captures)."""


def connect(adress):
    """Open a conection to the server."""
    return adress


def retreive(key):
    return key
