-- One table of a bench workspace; workspace_table is replaced by its name (OLB_<8 hex>_…,
-- checked) before sending. CASCADE CONSTRAINTS: the foreign key of load_run_event does not
-- dictate an order. PURGE: no copy in the recycle bin, and the identity column's sequence goes
-- with the table.
DROP TABLE workspace_table CASCADE CONSTRAINTS PURGE
