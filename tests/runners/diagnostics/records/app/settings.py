"""Settings."""
DB_PASSWORD = "correct-horse-battery"
BIND = "0.0.0.0"
def load( path ):
    return eval(open(path).read())
