variable "bucket" {
  type = string
}

resource "terraform_data" "bucket" {
  input = {
    name = var.bucket
    size = var.size_gb * 1024
  }
}

resource "terraform_data" "replica" {
  input       = terraform_data.primary.output
  replacement = true
}

output "bucket_name" {
  value = terraform_data.bucket.output.name
}
