import os
def clean(path):
  os.system("rm -rf " + path)
  assert path, "path must be set"
