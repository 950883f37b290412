-- load_place: where a load stands in load order when that is not at its own id.
--
-- Load order is the order in which loads begin, and load ids (run ids) are taken in that order,
-- except for a file set staged again: a killed multi-file run's set (load_hold_set, 017) that a
-- run of part of it staged out of order (restage, 018) is staged again whole as new loads, and
-- those count as begun where the set began (its first load), its files in the set's order: also
-- a file the killed run never began, and also a file of the set that was loaded alone meanwhile
-- (that alone load stands at its own id; the set's load of the file at the set's place). Every
-- load begun after the set's first load is later than all of them. Until this table only the run
-- that staged the set again knew it (in memory): a later run compared raw ids, and a load begun
-- after the set, resumed after the set was staged again, yielded to the set's new loads
-- (test/survival/resumed-after-restaged-set.test.ts).
--
-- One row per load that does not stand at its own id, written when its run begins it, before it
-- stages a line (src/pipeline/load-places.ts): a set's file staged again (began_at: the set's
-- first load; place: the file's place in the set, from 1), the loads it supersedes at the same
-- place (those the sets staged again, a killed rerun's included, began at that file's place after
-- the set's first load), and a load of a part of a set that took a
-- place the set's run had not begun (at itself: began_at = load_id, place 0; written first, so
-- that staging the set again does not move it to the set's place). A load without a row stands
-- at (load_id, 0). Positions compare as (began_at, place). A row never changes (written once,
-- ON CONFLICT DO NOTHING) and is never deleted: a fact that stays true, read by every later run
-- whose load begun before the run yields to later loads (queries/later_load_keys.sql, with the
-- loads that stand no later excepted by the caller). Few rows: only the loads of sets staged again.
CREATE TABLE IF NOT EXISTS load_place (
  load_id  bigint  NOT NULL,
  began_at bigint  NOT NULL,
  place    integer NOT NULL,
  CONSTRAINT pk_load_place PRIMARY KEY (load_id),
  CONSTRAINT ck_load_place_began CHECK (began_at <= load_id AND place >= 0)
);
