-- Waits until no other migrate() holds it; released by that connection's ROLLBACK.
LOCK TABLE order_loader_migration_lock IN EXCLUSIVE MODE
