import lit.formats
config.name = "strings"
config.test_format = lit.formats.ShTest(False)
config.suffixes = [".test"]
config.test_source_root = os.path.dirname(__file__)
