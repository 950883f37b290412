-- The raw text of the latest error-log row of each stage row in $1 (and the load that logged
-- it), for `retry` of a row whose line was rejected while parsing: it starts from that line; and
-- its phase, for a `retry` of the rows whose latest error is of one phase (the review page's filter).
SELECT t.stage_id, e.load_id, e.raw_record, e.phase
  FROM unnest($1::bigint[]) AS t(stage_id)
  JOIN LATERAL (
        SELECT b.load_id, b.raw_record, b.phase
          FROM order_bulk_error b
         WHERE b.stage_id = t.stage_id
         ORDER BY b.error_id DESC
         LIMIT 1) e ON true;
