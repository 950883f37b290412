/**
 * The table model's (table-model.ts) reading of load_place's statements (migrations/016_load_places.sql):
 * the record of where a load stands (load_place_record.sql, a MERGE per load that inserts only an
 * absent load) and the read of the places from a load on (load_places.sql). Each is matched as a
 * whole normalized text, so a statement that loses its ON, inserts other columns or reads another
 * range is not recognised (the model throws). The CHECK of migration 016 is kept (ORA-02290 for a
 * load placed after a greater load, or at a negative place), the primary key by the MERGE's ON.
 */

/** A row of load_place (migrations/016_load_places.sql). */
export interface PlaceRow {
  load_id: number;
  began_at: number;
  place: number;
}

type Binds = Record<string, unknown>;

const RECORD =
  'merge into load_place p using (select :load_id as load_id, :began_at as began_at, :place as place from dual) src on (p.load_id = src.load_id) when not matched then insert (load_id, began_at, place) values (src.load_id, src.began_at, src.place)';

const READ = 'select load_id, began_at, place from load_place where load_id >= :from_load order by load_id';

export function isPlaceRecord(text: string): boolean {
  return text.startsWith('merge into load_place ');
}

export function isPlaceRead(text: string): boolean {
  return text.startsWith('select load_id, began_at, place from load_place ');
}

/**
 * load_place_record.sql, one iteration: inserts the load's place unless it has one (1 row or 0).
 * `refuse` builds the model's row error (statement-level: the caller undoes the iteration).
 */
export function recordPlace(places: PlaceRow[], text: string, b: Binds, refuse: (message: string) => Error): number {
  if (text !== RECORD) throw new Error(`model: load place record of an unknown form: ${text.slice(0, 120)}`);
  const row = { load_id: Number(b.load_id), began_at: Number(b.began_at), place: Number(b.place) };
  if (places.some((p) => p.load_id === row.load_id)) return 0;
  if (!(row.began_at <= row.load_id && row.place >= 0)) throw refuse('ORA-02290: check constraint (CK_LOAD_PLACE_BEGAN) violated');
  places.push(row);
  return 1;
}

/** load_places.sql: the rows from :from_load on, by load id, as the fetch type handler gives them (text). */
export function readPlaces(places: readonly PlaceRow[], text: string, b: Binds): Record<string, string>[] {
  if (text !== READ) throw new Error(`model: load places read of an unknown form: ${text.slice(0, 120)}`);
  const from = Number(b.from_load);
  return places
    .filter((p) => p.load_id >= from)
    .sort((a, b) => a.load_id - b.load_id)
    .map((p) => ({ LOAD_ID: String(p.load_id), BEGAN_AT: String(p.began_at), PLACE: String(p.place) }));
}
