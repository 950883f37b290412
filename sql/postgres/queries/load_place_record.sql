-- Where these loads stand in load order (migration 021), written before they stage a line; a load
-- that has its place already keeps it (a part's load at itself, a set's load moved before).
-- $1: load ids; $2: the loads they count as begun at; $3: their places after those loads.
INSERT INTO load_place (load_id, began_at, place)
SELECT t.load_id, t.began_at, t.place
  FROM unnest($1::bigint[], $2::bigint[], $3::int[]) AS t(load_id, began_at, place)
 ORDER BY t.load_id
ON CONFLICT (load_id) DO NOTHING
