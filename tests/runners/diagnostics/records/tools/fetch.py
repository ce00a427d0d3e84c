"""Fetches release notes."""
import tempfile
import yaml
import requests


def notes(url):
    r = requests.get(url, verify=False)
    return yaml.load(r.text)


def scratch():
    return tempfile.mktemp(suffix=".notes")
