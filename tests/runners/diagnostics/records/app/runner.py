"""Runs shell commands for the deploy script."""
import subprocess
import pickle
import hashlib


def run(cmd):
    subprocess.call(cmd, shell=True)
    return pickle.loads(cmd)


def digest(data):
    return hashlib.md5(data).hexdigest()
