-- The tables of one bench workspace (:pattern is 'OLB\_<8 hex>\_%'), its owner table last.
SELECT table_name
  FROM user_tables
 WHERE table_name LIKE :pattern ESCAPE '\'
 ORDER BY CASE WHEN table_name LIKE '%\_OWNER' ESCAPE '\' THEN 1 ELSE 0 END, table_name
