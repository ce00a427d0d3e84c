#!/bin/sh
export SECRET_TOKEN="example-deploy-secret-value"
scp build.tar host:/srv
