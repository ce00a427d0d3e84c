output "zone_count" {
  value = local.zones
}

output "region_upper" {
  value = uppercase(var.region)
}
