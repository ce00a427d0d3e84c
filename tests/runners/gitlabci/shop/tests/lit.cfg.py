import lit.formats
config.name = "shop"
config.test_format = lit.formats.ShTest(False)
config.suffixes = [".t"]
config.test_source_root = os.path.dirname(__file__)
