ANALYZE order_stage;
