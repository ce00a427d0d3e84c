#!/usr/bin/env bash
# A CI-like job of plain steps (each announced as a runner does), one of which fails before any
# test runs: `job.sh npm|pip|missing|cmake|make`. Run from tests/runners/capture setup.
set -uo pipefail
step() { echo "==> $1"; }
step "Check out"
git --version
step "Set up the toolchain"
node --version
python3 --version
case "$1" in
  npm)
    step "Install dependencies"
    dir=$(mktemp -d); cd "$dir" && printf '{"name":"app","version":"1.0.0","dependencies":{"left-pad-does-not-exist-zz9":"^1.0.0"}}\n' > package.json
    npm install --no-audit --no-fund || { echo "Error: Process completed with exit code 1."; exit 1; } ;;
  pip)
    step "Install dependencies"
    python3 -m pip install --disable-pip-version-check --no-input definitely-not-a-package-zz9==1.0 || { echo "Error: Process completed with exit code 1."; exit 1; } ;;
  missing)
    step "Build"
    echo "building the release"
    ./configure --prefix=/usr || { echo "Error: Process completed with exit code 127."; exit 127; } ;;
  cmake)
    step "Configure"
    dir=$(mktemp -d); cd "$dir" && printf 'cmake_minimum_required(VERSION 3.16)\nproject(viewer CXX)\nfind_package(Threads REQUIRED)\nfind_package(ImageCodecZz9 3.1 REQUIRED CONFIG)\nadd_executable(viewer main.cpp)\n' > CMakeLists.txt
    cmake -S . -B build || { echo "Error: Process completed with exit code 1."; exit 1; } ;;
  make)
    step "Build"
    dir=$(mktemp -d); cd "$dir" && printf 'all: dist/app\n\ndist/app: src/main.o\n\tcc -o $@ $^\n' > Makefile
    make || { echo "Error: Process completed with exit code 2."; exit 2; } ;;
esac
step "Run the tests"
echo "never reached"
