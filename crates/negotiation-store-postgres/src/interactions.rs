//! The interactions a host provides. An operation that reads before it
//! writes takes a transaction-scoped advisory lock on the person first, so
//! racing hosts decide one after another; a replacement is a single
//! compare-and-set statement.

use async_trait::async_trait;
use deadpool_postgres::GenericClient;

use index_negotiation_store::sql_rows::{
    INTERACTION_COLUMNS, StoredInteraction, millis_to_stored, stored_interaction, version_to_stored,
};
use index_negotiation_store::{
    ACKNOWLEDGEMENTS_KEPT, Actor, AuditWrite, InteractionFilter, InteractionInsert,
    InteractionRecord, InteractionStatus, InteractionStore, ResponseDecider, ResponseKey,
    ResponseScene, Room, StoreError, UserId,
};

use crate::PostgresStore;
use crate::error::pg_error;
use crate::store::append_audit;

fn interaction_from_row(row: &tokio_postgres::Row) -> Result<InteractionRecord, StoreError> {
    stored_interaction(StoredInteraction {
        owner: row.try_get(0).map_err(pg_error)?,
        id: row.try_get(1).map_err(pg_error)?,
        run_id: row.try_get(2).map_err(pg_error)?,
        environment_id: row.try_get(3).map_err(pg_error)?,
        session_id: row.try_get(4).map_err(pg_error)?,
        status: row.try_get(5).map_err(pg_error)?,
        created_at_ms: row.try_get(6).map_err(pg_error)?,
        version: row.try_get(7).map_err(pg_error)?,
        body: row.try_get(8).map_err(pg_error)?,
    })
}

async fn find(
    client: &impl GenericClient,
    owner: &UserId,
    id: &str,
) -> Result<Option<InteractionRecord>, StoreError> {
    client
        .query_opt(
            &format!("SELECT {INTERACTION_COLUMNS} FROM interactions WHERE owner = $1 AND id = $2"),
            &[&owner.as_str(), &id],
        )
        .await
        .map_err(pg_error)?
        .as_ref()
        .map(interaction_from_row)
        .transpose()
}

async fn replace(
    client: &impl GenericClient,
    record: &InteractionRecord,
) -> Result<bool, StoreError> {
    let replaced = client
        .execute(
            "UPDATE interactions SET version = version + 1, status = $4, body = $5 \
             WHERE owner = $1 AND id = $2 AND version = $3",
            &[
                &record.owner.as_str(),
                &record.id,
                &version_to_stored(record.version),
                &record.status.as_str(),
                &record.body,
            ],
        )
        .await
        .map_err(pg_error)?;
    Ok(replaced == 1)
}

/// A transaction that reads what committed before each statement, as the
/// advisory lock needs (under a server default of repeatable read, the
/// snapshot would predate the lock).
async fn read_committed(
    client: &mut deadpool_postgres::Object,
) -> Result<deadpool_postgres::Transaction<'_>, StoreError> {
    client
        .build_transaction()
        .isolation_level(tokio_postgres::IsolationLevel::ReadCommitted)
        .start()
        .await
        .map_err(pg_error)
}

/// Serialises the person's interaction changes that read before they
/// write, across every host of the store.
async fn lock_person(client: &impl GenericClient, owner: &UserId) -> Result<(), StoreError> {
    client
        .execute(
            "SELECT pg_advisory_xact_lock(hashtextextended('interactions:' || $1, 0))",
            &[&owner.as_str()],
        )
        .await
        .map_err(pg_error)?;
    Ok(())
}

#[async_trait]
impl InteractionStore for PostgresStore {
    async fn insert_interaction(
        &self,
        record: &InteractionRecord,
        most_per_owner: usize,
        actor: &Actor,
    ) -> Result<InteractionInsert, StoreError> {
        let mut client = self.client().await?;
        let tx = read_committed(&mut client).await?;
        lock_person(&tx, &record.owner).await?;
        if let Some(held) = find(&tx, &record.owner, &record.id).await? {
            return Ok(InteractionInsert::Exists(held));
        }
        let rows = tx
            .query(
                "SELECT created_at_ms, status <> 'pending', id FROM interactions WHERE owner = $1",
                &[&record.owner.as_str()],
            )
            .await
            .map_err(pg_error)?;
        let held = rows
            .iter()
            .map(|row| {
                let created: i64 = row.try_get(0).map_err(pg_error)?;
                let settled: bool = row.try_get(1).map_err(pg_error)?;
                let id: &str = row.try_get(2).map_err(pg_error)?;
                Ok((created, settled, id))
            })
            .collect::<Result<Vec<_>, StoreError>>()?;
        match Room::among(&held, most_per_owner) {
            Room::Full => return Ok(InteractionInsert::Full),
            Room::Forgetting(id) => {
                tx.execute(
                    "DELETE FROM interactions WHERE owner = $1 AND id = $2",
                    &[&record.owner.as_str(), &id],
                )
                .await
                .map_err(pg_error)?;
            }
            Room::Free => {}
        }
        tx.execute(
            &format!(
                "INSERT INTO interactions ({INTERACTION_COLUMNS}) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)"
            ),
            &[
                &record.owner.as_str(),
                &record.id,
                &record.run_id,
                &record.environment_id,
                &record.session_id,
                &record.status.as_str(),
                &millis_to_stored(record.created_at_ms),
                &version_to_stored(record.version),
                &record.body,
            ],
        )
        .await
        .map_err(pg_error)?;
        let asked = AuditWrite::interaction_requested(&record.owner, &record.id, actor);
        append_audit(&tx, asked).await?;
        tx.commit().await.map_err(pg_error)?;
        Ok(InteractionInsert::Inserted)
    }

    async fn find_interaction(
        &self,
        owner: &UserId,
        id: &str,
    ) -> Result<Option<InteractionRecord>, StoreError> {
        find(&self.client().await?, owner, id).await
    }

    async fn list_interactions(
        &self,
        owner: &UserId,
        filter: &InteractionFilter,
    ) -> Result<Vec<InteractionRecord>, StoreError> {
        let status = filter.status.map(InteractionStatus::as_str);
        let (after_ms, after_id) = filter.after.as_ref().map_or((-1, ""), |after| {
            (millis_to_stored(after.created_at_ms), after.id.as_str())
        });
        let limit = i64::try_from(filter.limit).unwrap_or(i64::MAX);
        let rows = self
            .client()
            .await?
            .query(
                &format!(
                    "SELECT {INTERACTION_COLUMNS} FROM interactions \
                     WHERE owner = $1 AND ($2::TEXT IS NULL OR status = $2) \
                     AND (created_at_ms, id) > ($3, $4) \
                     ORDER BY created_at_ms, id LIMIT $5"
                ),
                &[&owner.as_str(), &status, &after_ms, &after_id, &limit],
            )
            .await
            .map_err(pg_error)?;
        rows.iter().map(interaction_from_row).collect()
    }

    async fn replace_interaction(&self, record: &InteractionRecord) -> Result<bool, StoreError> {
        replace(&self.client().await?, record).await
    }

    async fn commit_interaction_response(
        &self,
        owner: &UserId,
        key: &ResponseKey,
        actor: &Actor,
        decide: ResponseDecider,
    ) -> Result<String, StoreError> {
        let mut client = self.client().await?;
        let tx = read_committed(&mut client).await?;
        lock_person(&tx, owner).await?;
        let who = owner.as_str();
        let replay = tx
            .query_opt(
                "SELECT acknowledgement FROM interaction_acknowledgements \
                 WHERE owner = $1 AND operation_id = $2",
                &[&who, &key.operation_id],
            )
            .await
            .map_err(pg_error)?
            .map(|row| row.try_get(0))
            .transpose()
            .map_err(pg_error)?;
        let known = tx
            .query_one(
                "SELECT EXISTS (SELECT 1 FROM interactions WHERE owner = $1 AND run_id = $2), \
                 EXISTS (SELECT 1 FROM interactions WHERE owner = $1 AND run_id = $2 \
                         AND environment_id = $3 AND session_id = $4)",
                &[&who, &key.run_id, &key.environment_id, &key.session_id],
            )
            .await
            .map_err(pg_error)?;
        // The row is locked as well, so a replacement racing from outside
        // the person's lock waits for this commit and then finds the
        // version moved.
        let interaction = tx
            .query_opt(
                &format!(
                    "SELECT {INTERACTION_COLUMNS} FROM interactions \
                     WHERE owner = $1 AND id = $2 AND run_id = $3 \
                     AND environment_id = $4 AND session_id = $5 FOR UPDATE"
                ),
                &[
                    &who,
                    &key.interaction_id,
                    &key.run_id,
                    &key.environment_id,
                    &key.session_id,
                ],
            )
            .await
            .map_err(pg_error)?
            .as_ref()
            .map(interaction_from_row)
            .transpose()?;
        let write = decide(ResponseScene {
            replay,
            run_known: known.try_get(0).map_err(pg_error)?,
            session_known: known.try_get(1).map_err(pg_error)?,
            interaction,
        });
        if let Some(record) = &write.interaction
            && !replace(&tx, record).await?
        {
            return Err(StoreError::Backend(
                "an interaction changed under its response's lock".into(),
            ));
        }
        if let Some(record) = write.interaction.as_ref().filter(|_| write.resolves) {
            let resolved = AuditWrite::interaction_resolved(owner, &record.id, actor);
            append_audit(&tx, resolved).await?;
        }
        if write.record {
            tx.execute(
                "INSERT INTO interaction_acknowledgements (owner, operation_id, acknowledgement) \
                 VALUES ($1, $2, $3)",
                &[&who, &key.operation_id, &write.acknowledgement],
            )
            .await
            .map_err(pg_error)?;
            tx.execute(
                "DELETE FROM interaction_acknowledgements WHERE owner = $1 AND seq <= \
                 (SELECT seq FROM interaction_acknowledgements WHERE owner = $1 \
                  ORDER BY seq DESC LIMIT 1 OFFSET $2)",
                &[
                    &who,
                    &i64::try_from(ACKNOWLEDGEMENTS_KEPT).unwrap_or(i64::MAX),
                ],
            )
            .await
            .map_err(pg_error)?;
        }
        tx.commit().await.map_err(pg_error)?;
        Ok(write.acknowledgement)
    }
}
