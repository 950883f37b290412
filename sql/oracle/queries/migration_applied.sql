SELECT version FROM order_loader_migration ORDER BY version
