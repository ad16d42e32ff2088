//! The interactions a host provides, each operation one transaction; a
//! response command reads its scene, is decided and applied under the
//! write lock, so racing commands (from any process) decide one after
//! another.

use async_trait::async_trait;
use rusqlite::{Connection, OptionalExtension, params};

use index_negotiation_store::sql_rows::{
    INTERACTION_COLUMNS, StoredInteraction, millis_to_stored, stored_interaction, version_to_stored,
};
use index_negotiation_store::{
    ACKNOWLEDGEMENTS_KEPT, Actor, AuditWrite, InteractionFilter, InteractionInsert,
    InteractionRecord, InteractionStatus, InteractionStore, ResponseDecider, ResponseKey,
    ResponseScene, Room, StoreError, UserId,
};

use crate::SqliteStore;
use crate::error::sql_error;
use crate::store::append_audit;
use crate::tx::begin_write;

fn interaction_from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<StoredInteraction> {
    Ok(StoredInteraction {
        owner: row.get(0)?,
        id: row.get(1)?,
        run_id: row.get(2)?,
        environment_id: row.get(3)?,
        session_id: row.get(4)?,
        status: row.get(5)?,
        created_at_ms: row.get(6)?,
        version: row.get(7)?,
        body: row.get(8)?,
    })
}

fn find(
    conn: &Connection,
    owner: &UserId,
    id: &str,
) -> Result<Option<InteractionRecord>, StoreError> {
    conn.prepare_cached(&format!(
        "SELECT {INTERACTION_COLUMNS} FROM interactions WHERE owner = ?1 AND id = ?2"
    ))
    .and_then(|mut find| {
        find.query_row(params![owner.as_str(), id], interaction_from_row)
            .optional()
    })
    .map_err(sql_error)?
    .map(stored_interaction)
    .transpose()
}

fn replace(conn: &Connection, record: &InteractionRecord) -> Result<bool, StoreError> {
    let replaced = conn
        .prepare_cached(
            "UPDATE interactions SET version = version + 1, status = ?4, body = ?5 \
             WHERE owner = ?1 AND id = ?2 AND version = ?3",
        )
        .and_then(|mut replace| {
            replace.execute(params![
                record.owner.as_str(),
                record.id,
                version_to_stored(record.version),
                record.status.as_str(),
                record.body
            ])
        })
        .map_err(sql_error)?;
    Ok(replaced == 1)
}

fn exists(conn: &Connection, sql: &str, values: impl rusqlite::Params) -> Result<bool, StoreError> {
    conn.prepare_cached(sql)
        .and_then(|mut select| select.exists(values))
        .map_err(sql_error)
}

#[async_trait]
impl InteractionStore for SqliteStore {
    async fn insert_interaction(
        &self,
        record: &InteractionRecord,
        most_per_owner: usize,
        actor: &Actor,
    ) -> Result<InteractionInsert, StoreError> {
        let (record, actor) = (record.clone(), actor.clone());
        self.pool
            .run_write(move |conn| {
                let tx = begin_write(conn)?;
                if let Some(held) = find(&tx, &record.owner, &record.id)? {
                    return Ok(InteractionInsert::Exists(held));
                }
                let theirs: Vec<(i64, bool, String)> = {
                    let mut select = tx
                        .prepare_cached(
                            "SELECT created_at_ms, status <> 'pending', id FROM interactions \
                             WHERE owner = ?1",
                        )
                        .map_err(sql_error)?;
                    let rows = select
                        .query_map(params![record.owner.as_str()], |row| {
                            Ok((row.get(0)?, row.get(1)?, row.get(2)?))
                        })
                        .map_err(sql_error)?;
                    rows.collect::<Result<_, _>>().map_err(sql_error)?
                };
                let held: Vec<_> = theirs
                    .iter()
                    .map(|(created, settled, id)| (*created, *settled, id.as_str()))
                    .collect();
                match Room::among(&held, most_per_owner) {
                    Room::Full => return Ok(InteractionInsert::Full),
                    Room::Forgetting(id) => {
                        tx.execute(
                            "DELETE FROM interactions WHERE owner = ?1 AND id = ?2",
                            params![record.owner.as_str(), id],
                        )
                        .map_err(sql_error)?;
                    }
                    Room::Free => {}
                }
                tx.execute(
                    &format!(
                        "INSERT INTO interactions ({INTERACTION_COLUMNS}) \
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"
                    ),
                    params![
                        record.owner.as_str(),
                        record.id,
                        record.run_id,
                        record.environment_id,
                        record.session_id,
                        record.status.as_str(),
                        millis_to_stored(record.created_at_ms),
                        version_to_stored(record.version),
                        record.body
                    ],
                )
                .map_err(sql_error)?;
                let asked = AuditWrite::interaction_requested(&record.owner, &record.id, &actor);
                append_audit(&tx, asked)?;
                tx.commit().map_err(sql_error)?;
                Ok(InteractionInsert::Inserted)
            })
            .await
    }

    async fn find_interaction(
        &self,
        owner: &UserId,
        id: &str,
    ) -> Result<Option<InteractionRecord>, StoreError> {
        let (owner, id) = (owner.clone(), id.to_owned());
        self.pool.run(move |conn| find(conn, &owner, &id)).await
    }

    async fn list_interactions(
        &self,
        owner: &UserId,
        filter: &InteractionFilter,
    ) -> Result<Vec<InteractionRecord>, StoreError> {
        let owner = owner.clone();
        let status = filter.status.map(InteractionStatus::as_str);
        let (after_ms, after_id) = filter.after.as_ref().map_or((-1, String::new()), |after| {
            (millis_to_stored(after.created_at_ms), after.id.clone())
        });
        let limit = i64::try_from(filter.limit).unwrap_or(i64::MAX);
        self.pool
            .run(move |conn| {
                let mut select = conn
                    .prepare_cached(&format!(
                        "SELECT {INTERACTION_COLUMNS} FROM interactions \
                         WHERE owner = ?1 AND (?2 IS NULL OR status = ?2) \
                         AND (created_at_ms, id) > (?3, ?4) \
                         ORDER BY created_at_ms, id LIMIT ?5"
                    ))
                    .map_err(sql_error)?;
                let rows = select
                    .query_map(
                        params![owner.as_str(), status, after_ms, after_id, limit],
                        interaction_from_row,
                    )
                    .map_err(sql_error)?;
                rows.map(|row| stored_interaction(row.map_err(sql_error)?))
                    .collect()
            })
            .await
    }

    async fn replace_interaction(&self, record: &InteractionRecord) -> Result<bool, StoreError> {
        let record = record.clone();
        self.pool
            .run_write(move |conn| replace(conn, &record))
            .await
    }

    async fn commit_interaction_response(
        &self,
        owner: &UserId,
        key: &ResponseKey,
        actor: &Actor,
        decide: ResponseDecider,
    ) -> Result<String, StoreError> {
        let (owner, key, actor) = (owner.clone(), key.clone(), actor.clone());
        self.pool
            .run_write(move |conn| {
                let tx = begin_write(conn)?;
                let who = owner.as_str();
                let replay = tx
                    .prepare_cached(
                        "SELECT acknowledgement FROM interaction_acknowledgements \
                         WHERE owner = ?1 AND operation_id = ?2",
                    )
                    .and_then(|mut select| {
                        select
                            .query_row(params![who, key.operation_id], |row| row.get(0))
                            .optional()
                    })
                    .map_err(sql_error)?;
                let run_known = exists(
                    &tx,
                    "SELECT 1 FROM interactions WHERE owner = ?1 AND run_id = ?2",
                    params![who, key.run_id],
                )?;
                let session_known = exists(
                    &tx,
                    "SELECT 1 FROM interactions WHERE owner = ?1 AND run_id = ?2 \
                     AND environment_id = ?3 AND session_id = ?4",
                    params![who, key.run_id, key.environment_id, key.session_id],
                )?;
                let interaction = find(&tx, &owner, &key.interaction_id)?.filter(|found| {
                    (&found.run_id, &found.environment_id, &found.session_id)
                        == (&key.run_id, &key.environment_id, &key.session_id)
                });
                let write = decide(ResponseScene {
                    replay,
                    run_known,
                    session_known,
                    interaction,
                });
                if let Some(record) = &write.interaction
                    && !replace(&tx, record)?
                {
                    return Err(StoreError::Backend(
                        "an interaction changed under its response's lock".into(),
                    ));
                }
                if let Some(record) = write.interaction.as_ref().filter(|_| write.resolves) {
                    let resolved = AuditWrite::interaction_resolved(&owner, &record.id, &actor);
                    append_audit(&tx, resolved)?;
                }
                if write.record {
                    tx.prepare_cached(
                        "INSERT INTO interaction_acknowledgements \
                         (owner, operation_id, acknowledgement) VALUES (?1, ?2, ?3)",
                    )
                    .and_then(|mut insert| {
                        insert.execute(params![who, key.operation_id, write.acknowledgement])
                    })
                    .map_err(sql_error)?;
                    tx.prepare_cached(
                        "DELETE FROM interaction_acknowledgements WHERE owner = ?1 AND seq <= \
                         (SELECT seq FROM interaction_acknowledgements WHERE owner = ?1 \
                          ORDER BY seq DESC LIMIT 1 OFFSET ?2)",
                    )
                    .and_then(|mut forget| {
                        forget.execute(params![
                            who,
                            i64::try_from(ACKNOWLEDGEMENTS_KEPT).unwrap_or(i64::MAX)
                        ])
                    })
                    .map_err(sql_error)?;
                }
                tx.commit().map_err(sql_error)?;
                Ok(write.acknowledgement)
            })
            .await
    }
}
