//! The conformance suite: what every
//! [`NegotiationStore`](crate::NegotiationStore) must do, as async
//! functions that take a fresh, empty store, one module per family of
//! promises (opening, turns, the commit contract, races, listing, keys,
//! the question loop, the audit record).
//!
//! A backend runs all of it from its own tests with one line:
//!
//! ```text
//! index_negotiation_store::negotiation_store_conformance!(my_backend::fresh_store());
//! ```
//!
//! where the expression is a future resolving to an empty store (it is
//! evaluated once per test). The backend's test crate needs `tokio` with
//! the `macros` and `rt-multi-thread` features.
//!
//! The suite panics on a broken promise, as tests do; it is test code and
//! only compiled with the `conformance` feature.
//!
//! | module | holds |
//! |---|---|
//! | `fixtures` | the shared cast and moves |
//! | `opening` | one negotiation per opportunity, only for a permitted pair |
//! | `turns` | who may move when, and what a round's end, a settlement or a close leaves |
//! | `commits` | the commit contract: `decide` once, a refusal writes nothing, what a commit hands back |
//! | `races` | turns and resumes racing on one negotiation |
//! | `listing` | filters, order and pages |
//! | `question_loop` | parks and answers, each in one commit |
//! | `keys` | the API keys beside the negotiations |
//! | `audit` | the audit record: each applied step with its actor, nothing for a refusal, reads filtered and paged |
//! | `webhooks` | events queued in their commits for those who may hear them, deliveries leased, retried, given up and replayed, endpoints rotated and removed |
//! | `host_state` | what hosts share between requests: signing keys, spent tokens, tasks |
//! | `interactions` | interactions stored, listed, bounded, replaced, and response commands decided in one commit |
//! | `upgrade` | what an upgrade must make of an old schema |
//! | `bench` | drivers for the backends' benchmarks |

// Test code reports a broken promise by panicking, and what a race did
// on standard error (shown with `--nocapture`).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::print_stderr
)]

mod audit;
mod bench;
mod commits;
mod fixtures;
mod host_state;
mod interactions;
mod keys;
mod listing;
mod opening;
mod question_loop;
mod races;
mod turns;
mod upgrade;
mod webhooks;

pub use audit::{
    each_applied_step_is_audited_with_its_actor, key_steps_are_audited_for_the_keys_person,
    the_audit_record_is_filtered_and_paged,
};
pub use bench::{
    GrowthRow, GrowthScale, RARE_INTENT_ROWS, commit_next_turn, drive_commits,
    drive_commits_in_parallel, measure_growth, open_for_listing, open_with_turns,
};
pub use commits::{
    a_commit_hands_back_what_a_read_finds, a_round_read_holds_what_the_rules_read,
    decide_is_called_exactly_once_per_commit, refusals_change_nothing,
};
pub use fixtures::park_turn;
pub use host_state::{
    a_person_holds_a_bounded_number_of_tasks, a_task_changes_only_from_the_version_read,
    a_token_is_spent_once, signing_keys_are_shared_and_rotate_with_an_overlap,
};
pub use interactions::{
    a_person_holds_a_bounded_number_of_pending_interactions,
    a_response_is_decided_against_its_scene_and_recorded,
    an_interaction_changes_only_from_the_version_read,
    interactions_are_stored_once_per_person_and_listed_in_pages, racing_responses_have_one_winner,
    the_newest_acknowledgements_are_kept,
};
pub use keys::{
    a_grant_is_revoked_whole, api_keys_are_found_by_hash_listed_and_revoked,
    api_keys_keep_their_name_expiry_and_last_use, racing_revokes_have_one_winner,
};
pub use listing::{
    listing_filters_by_intent_and_state,
    pages_never_repeat_or_lose_a_negotiation_while_commits_land,
};
pub use opening::{
    an_upper_case_id_names_the_same_negotiation, ineligible_pairs_are_not_opened,
    opening_creates_a_negotiation_with_the_initiator_to_move, opening_twice_is_refused,
};
pub use question_loop::{
    a_park_racing_a_resume_and_a_turn_never_leaves_both,
    a_park_waits_on_its_person_and_the_answer_resumes_it,
    a_resumed_negotiation_parks_again_only_after_another_stall,
    an_answer_delivered_twice_at_once_is_recorded_once,
    an_answer_racing_a_close_is_whole_or_not_at_all, messages_keep_their_order,
    racing_parks_have_one_winner_and_the_cap_holds,
};
pub use races::{
    racing_resumes_have_one_winner, racing_seats_never_lose_or_duplicate_a_turn,
    racing_turns_have_one_winner_per_index,
};
pub use turns::{
    accept_settles_and_leaves_the_opportunity_pending, an_inactive_intent_blocks_turns_and_resumes,
    closed_negotiations_refuse_everything, decline_ends_the_round_and_resume_starts_the_next,
    missing_negotiations_are_not_found, resume_is_refused_while_a_seat_holds_the_turn,
    strangers_hold_no_seat, the_turn_limit_ends_the_round, turns_alternate_and_are_logged_in_order,
};
pub use upgrade::{
    LegacyLog, LegacyRecord, assert_rounds_upgraded, assert_upgraded, legacy_id, legacy_logs,
    legacy_question, legacy_records,
};
pub use webhooks::{
    deliveries_are_leased_retried_given_up_and_replayed,
    endpoints_are_registered_rotated_and_removed, events_reach_the_endpoints_that_may_hear_them,
};

/// Generates one `#[tokio::test]` per conformance case, each on a fresh
/// store from `$make` (a future resolving to the store).
///
/// For a backend that needs a service which may be absent (a database
/// server), `negotiation_store_conformance!(ignore = "why", $make)` marks
/// every case `#[ignore = "why"]`: a plain `cargo test` lists them as not
/// run, with the reason, and `cargo test -- --ignored` runs them once the
/// service is there (a missing one then fails, never passes).
#[macro_export]
macro_rules! negotiation_store_conformance {
    ($make:expr) => {
        // `cfg(all())` is always true: the plain suite's cases carry no
        // attribute of their own.
        $crate::negotiation_store_conformance!(@each [cfg(all())] $make);
    };
    (ignore = $why:literal, $make:expr) => {
        $crate::negotiation_store_conformance!(@each [ignore = $why] $make);
    };
    (@each [$attr:meta] $make:expr) => {
        $crate::negotiation_store_conformance!(@cases [$attr] $make;
            opening_creates_a_negotiation_with_the_initiator_to_move,
            a_round_read_holds_what_the_rules_read,
            a_commit_hands_back_what_a_read_finds,
            opening_twice_is_refused,
            an_upper_case_id_names_the_same_negotiation,
            ineligible_pairs_are_not_opened,
            turns_alternate_and_are_logged_in_order,
            decline_ends_the_round_and_resume_starts_the_next,
            the_turn_limit_ends_the_round,
            resume_is_refused_while_a_seat_holds_the_turn,
            accept_settles_and_leaves_the_opportunity_pending,
            strangers_hold_no_seat,
            missing_negotiations_are_not_found,
            an_inactive_intent_blocks_turns_and_resumes,
            closed_negotiations_refuse_everything,
            decide_is_called_exactly_once_per_commit,
            refusals_change_nothing,
            messages_keep_their_order,
            listing_filters_by_intent_and_state,
            pages_never_repeat_or_lose_a_negotiation_while_commits_land,
            racing_turns_have_one_winner_per_index,
            racing_resumes_have_one_winner,
            racing_seats_never_lose_or_duplicate_a_turn,
            api_keys_are_found_by_hash_listed_and_revoked,
            api_keys_keep_their_name_expiry_and_last_use,
            racing_revokes_have_one_winner,
            a_grant_is_revoked_whole,
            a_park_waits_on_its_person_and_the_answer_resumes_it,
            a_resumed_negotiation_parks_again_only_after_another_stall,
            racing_parks_have_one_winner_and_the_cap_holds,
            an_answer_delivered_twice_at_once_is_recorded_once,
            an_answer_racing_a_close_is_whole_or_not_at_all,
            a_park_racing_a_resume_and_a_turn_never_leaves_both,
            signing_keys_are_shared_and_rotate_with_an_overlap,
            a_token_is_spent_once,
            a_task_changes_only_from_the_version_read,
            a_person_holds_a_bounded_number_of_tasks,
            interactions_are_stored_once_per_person_and_listed_in_pages,
            a_person_holds_a_bounded_number_of_pending_interactions,
            an_interaction_changes_only_from_the_version_read,
            a_response_is_decided_against_its_scene_and_recorded,
            the_newest_acknowledgements_are_kept,
            racing_responses_have_one_winner,
            each_applied_step_is_audited_with_its_actor,
            the_audit_record_is_filtered_and_paged,
            key_steps_are_audited_for_the_keys_person,
            events_reach_the_endpoints_that_may_hear_them,
            deliveries_are_leased_retried_given_up_and_replayed,
            endpoints_are_registered_rotated_and_removed,
                );
    };
    (@cases [$attr:meta] $make:expr; $($case:ident),* $(,)?) => {
        $(
            #[::tokio::test(flavor = "multi_thread", worker_threads = 4)]
            #[$attr]
            async fn $case() {
                $crate::conformance::$case($make.await).await;
            }
        )*
    };
}
