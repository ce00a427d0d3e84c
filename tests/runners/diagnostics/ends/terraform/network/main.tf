terraform {
  required_version = ">= 1.5"
}

variable "region" {
  type    = string
  default = "eu-west-1"
}

locals {
  cidrs = cidrsubnets(var.vpc_cidr, 4, 4)
  zones = length(local.names)
}

resource "terraform_data" "network" {
  input = local.cidrs
}
