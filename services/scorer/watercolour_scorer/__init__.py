"""The scoring service: HPSv3 preference scores for rendered paintings."""
