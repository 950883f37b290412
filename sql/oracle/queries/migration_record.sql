INSERT INTO order_loader_migration (version, name) VALUES (:version, :name)
