import lit.formats
config.name = "units"
config.test_format = lit.formats.ShTest(True)
config.suffixes = [".t"]
config.test_source_root = os.path.dirname(__file__)
