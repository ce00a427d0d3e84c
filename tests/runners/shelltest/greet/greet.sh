#!/bin/sh
name=${1:-world}
printf 'hello, %s\n' "$name"
