//! What a transport keeps beside a [`Host`]: one value of each type, made
//! the first time it is asked for and shared by every clone of the host.
//!
//! A transport's state (MCP's sessions that can show forms, its tasks,
//! the forms it put and awaits) lives as long as the host it serves, yet
//! the service must not name it: the service stands below every
//! transport. This is the slot that lets each transport keep its own
//! without the service knowing what is in it, as `http::Extensions` does
//! for a request.

use std::any::{Any, TypeId};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};

/// One value of each type, shared.
#[derive(Default)]
pub(crate) struct Attached {
    values: Mutex<BTreeMap<TypeId, Arc<dyn Any + Send + Sync>>>,
}

impl std::fmt::Debug for Attached {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Attached").finish_non_exhaustive()
    }
}

impl Attached {
    /// The value of type `T`, made by `make` if there is none yet. `make`
    /// runs under the slot's lock, so at most once per type.
    pub(crate) fn get_or_make<T: Send + Sync + 'static>(&self, make: impl FnOnce() -> T) -> Arc<T> {
        let mut values = self.values.lock().unwrap_or_else(PoisonError::into_inner);
        let kept = values.get(&TypeId::of::<T>()).cloned();
        // The entry under `TypeId::of::<T>()` is only ever a `T`.
        if let Some(value) = kept.and_then(|value| value.downcast::<T>().ok()) {
            return value;
        }
        let value = Arc::new(make());
        values.insert(TypeId::of::<T>(), value.clone());
        value
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_type_is_made_once_and_shared() {
        let attached = Attached::default();
        let first = attached.get_or_make(|| 1_u32);
        let second = attached.get_or_make(|| 2_u32);
        assert!(Arc::ptr_eq(&first, &second));
        assert_eq!(*second, 1);
        assert_eq!(*attached.get_or_make(|| "other type"), "other type");
    }
}
