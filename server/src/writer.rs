//! The writer thread and its queue: on an SQLite file every write of the server goes
//! through one `Shipping`, in groups committed together
//! ([`consign::Shipping::commit_together`]). On PostgreSQL there is no writer thread:
//! [`Writes::Parallel`] runs each write on a blocking thread of its own.
//!
//! The queue is fair between tenants: each tenant (the API key of the request) has a
//! queue of its own, and the tenants with work wait in a ring. The writer forms a group
//! by taking one write from each tenant in turn, round the ring, until the group is full
//! ([`MAX_GROUP`] units of work) or no write is left; a tenant with many writes queued
//! goes round again after the others. So a tenant's burst delays another tenant's one
//! write by at most about one group, not by the whole burst. Writes are counted by their
//! cost: a call is one unit, storing priced quotes one unit per [`ROWS_PER_UNIT`] quoted
//! shipments, so that a group holds a few large stores or many small writes, not both.
//!
//! How many writes wait is bounded by the requests in flight (one per connection).

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Condvar, Mutex, PoisonError, Weak};

use consign::{Error, Shipping};

use crate::Pool;

/// Most units of work committed together in one group (see the module docs).
pub const MAX_GROUP: usize = 64;

/// Quoted shipments stored per unit of work of a group.
pub const ROWS_PER_UNIT: usize = 8;

/// A request that may write, queued for the writer thread. It is answered even when the
/// client has gone away meanwhile.
pub(crate) struct Write {
    pub(crate) request: Call,
    pub(crate) answer: tokio::sync::oneshot::Sender<consign::Response>,
}

/// A request to the interface as core takes it.
pub(crate) struct Call {
    pub(crate) key: String,
    pub(crate) method: String,
    pub(crate) target: String,
    pub(crate) body: String,
    /// For create and connect customer, their password work done off the writer
    /// (`logins`): the call is its short write.
    pub(crate) password: Option<consign::PasswordOutcome>,
    /// The request's `Idempotency-Key`, when it came with one.
    pub(crate) once: Option<consign::IdempotencyKey>,
    /// The holder of `key`, when the key was checked before the body was read.
    pub(crate) caller: Option<consign::Caller>,
}

impl Call {
    /// The holder of the call's key: the one found when the key was checked before the
    /// body was read, else the key checked now on `shipping`.
    ///
    /// # Errors
    /// `UNAUTHORIZED` for a malformed, unknown or revoked key.
    pub(crate) fn caller(&self, shipping: &Shipping) -> Result<consign::Caller, Error> {
        match &self.caller {
            Some(caller) => Ok(caller.clone()),
            None => shipping.authenticate(&self.key),
        }
    }

    /// Core's answer to the call on `shipping`.
    pub(crate) fn answer(&self, shipping: &Shipping) -> consign::Response {
        match (self.caller(shipping), &self.password, &self.once) {
            (Err(e), _, _) => consign::Response::error(&e),
            (Ok(caller), Some(outcome), Some(once)) => shipping.answer_password_once(&caller, once, outcome),
            (Ok(_), Some(outcome), None) => shipping.answer_password(outcome),
            (Ok(caller), None, Some(once)) => shipping.handle_once_as(&caller, once, &self.method, &self.target, &self.body),
            (Ok(caller), None, None) => shipping.handle_documents_as(&caller, &self.method, &self.target, &self.body),
        }
    }
}

/// Work for the writer other than a call: a function of the writer's `Shipping`, run in
/// a group, that answers.
pub(crate) type Work = Box<dyn FnOnce(&Shipping) -> consign::Response + Send>;

/// What the writer runs.
enum Job {
    /// Boxed: a call holds a password's outcome for create and connect customer.
    Call(Box<Call>),
    Work {
        cost: usize,
        work: Work,
    },
}

impl Job {
    /// Units of work, for the size of a group.
    fn cost(&self) -> usize {
        match self {
            Job::Call(_) => 1,
            Job::Work { cost, .. } => (*cost).max(1),
        }
    }

    fn run(self, shipping: &Shipping) -> consign::Response {
        match self {
            Job::Call(call) => call.answer(shipping),
            Job::Work { work, .. } => work(shipping),
        }
    }
}

/// A job and who waits for its answer.
struct Task {
    job: Job,
    answer: tokio::sync::oneshot::Sender<consign::Response>,
}

/// Queues of items per tenant and the ring of tenants with items: groups are formed
/// round-robin between tenants (see the module docs).
#[derive(Debug)]
pub(crate) struct Fair<T> {
    queues: HashMap<String, VecDeque<T>>,
    ring: VecDeque<String>,
}

impl<T> Default for Fair<T> {
    fn default() -> Self {
        Fair { queues: HashMap::new(), ring: VecDeque::new() }
    }
}

impl<T> Fair<T> {
    /// Queues `item` of `tenant` after the tenant's others.
    pub(crate) fn push(&mut self, tenant: &str, item: T) {
        match self.queues.get_mut(tenant) {
            Some(queue) => queue.push_back(item),
            None => {
                self.queues.insert(tenant.to_string(), VecDeque::from([item]));
                self.ring.push_back(tenant.to_string());
            }
        }
    }

    /// True when no item waits.
    pub(crate) fn is_empty(&self) -> bool {
        self.ring.is_empty()
    }

    /// The next group: one item of each tenant in turn, round the ring, while their
    /// costs fit in `budget` (the first item is taken whatever it costs). A tenant whose
    /// item does not fit keeps its turn for the next group.
    pub(crate) fn group(&mut self, budget: usize, cost: impl Fn(&T) -> usize) -> Vec<T> {
        let mut group = Vec::new();
        let mut left = budget;
        while let Some(tenant) = self.ring.pop_front() {
            let Some(queue) = self.queues.get_mut(&tenant) else { continue };
            let Some(next) = queue.front() else {
                self.queues.remove(&tenant);
                continue;
            };
            let c = cost(next);
            if !group.is_empty() && c > left {
                self.ring.push_front(tenant);
                break;
            }
            if let Some(item) = queue.pop_front() {
                group.push(item);
            }
            left = left.saturating_sub(c);
            if queue.is_empty() {
                self.queues.remove(&tenant);
            } else {
                self.ring.push_back(tenant);
            }
            if left == 0 {
                break;
            }
        }
        group
    }
}

/// The queue shared by the senders and the writer thread.
pub(crate) struct Queue {
    state: Mutex<State>,
    ready: Condvar,
}

struct State {
    tasks: Fair<Task>,
    /// No more tasks come: the writer ends once it has run those queued.
    closed: bool,
}

impl Queue {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Queues `job` of `tenant`, answered on `answer`; `Err` once the queue is closed.
    fn submit(&self, tenant: &str, job: Job, answer: tokio::sync::oneshot::Sender<consign::Response>) -> Result<(), Closed> {
        {
            let mut state = self.lock();
            if state.closed {
                return Err(Closed);
            }
            state.tasks.push(tenant, Task { job, answer });
        }
        self.ready.notify_one();
        Ok(())
    }

    /// Runs `work` of `tenant` on the writer and waits for its answer.
    async fn run(&self, tenant: &str, cost: usize, work: Work) -> Result<consign::Response, Closed> {
        let (answer, answered) = tokio::sync::oneshot::channel();
        self.submit(tenant, Job::Work { cost, work }, answer)?;
        answered.await.map_err(|_| Closed)
    }
}

/// Where the server's writes go, held by the server: the writer thread's queue on an
/// SQLite file, or, on PostgreSQL, a blocking thread of their own each, on a service of
/// the pool, in parallel (PostgreSQL serialises a customer's writes on its row and groups
/// commits itself). Dropping it closes the queue: the writer ends once it has committed
/// what was queued.
pub(crate) enum Writes {
    /// The writer thread's queue (SQLite).
    Queue(Arc<Queue>),
    /// Each write on a blocking thread, on a service of the pool (PostgreSQL).
    #[cfg_attr(not(feature = "postgres"), expect(dead_code, reason = "only a server on PostgreSQL writes in parallel"))]
    Parallel(Arc<Pool>),
}

/// Why a write was not answered: the queue is closed, or the writer failed.
#[derive(Debug)]
pub(crate) struct Closed;

impl Writes {
    /// Queues a request that may write, answered on `write.answer`; its tenant is its key.
    pub(crate) async fn send(&self, write: Write) -> Result<(), Closed> {
        match self {
            Writes::Queue(queue) => {
                let tenant = write.request.key.clone();
                queue.submit(&tenant, Job::Call(Box::new(write.request)), write.answer)
            }
            Writes::Parallel(pool) => {
                let lease = pool.lease().await.ok_or(Closed)?;
                // A panic drops `write.answer`: the request answers that it failed.
                tokio::task::spawn_blocking(move || {
                    if let Some(shipping) = lease.shipping.as_deref() {
                        let _ = write.answer.send(write.request.answer(shipping));
                    }
                });
                Ok(())
            }
        }
    }

    /// Runs `work` of `tenant`, costing `cost` units of a group, on the writer (on
    /// PostgreSQL, on a blocking thread of its own), and returns its answer.
    pub(crate) async fn run(&self, tenant: &str, cost: usize, work: Work) -> Result<consign::Response, Closed> {
        match self {
            Writes::Queue(queue) => queue.run(tenant, cost, work).await,
            Writes::Parallel(pool) => {
                let lease = pool.lease().await.ok_or(Closed)?;
                tokio::task::spawn_blocking(move || lease.shipping.as_deref().map(work)).await.ok().flatten().ok_or(Closed)
            }
        }
    }

    /// A handle that does not keep the queue open.
    pub(crate) fn downgrade(&self) -> Handle {
        match self {
            Writes::Queue(queue) => Handle::Queue(Arc::downgrade(queue)),
            Writes::Parallel(_) => Handle::Direct,
        }
    }
}

/// A handle of [`Writes::downgrade`], for a thread outside the async runtime.
pub(crate) enum Handle {
    /// The writer thread's queue, while it is open.
    Queue(Weak<Queue>),
    /// On PostgreSQL: the thread writes on its own service.
    Direct,
}

/// [`Writes::run`] through a handle of [`Writes::downgrade`], from a thread outside the
/// async runtime: waits for the answer. With [`Handle::Direct`] the work runs on
/// `shipping`, the calling thread's own service.
pub(crate) fn run_blocking(
    handle: &Handle,
    shipping: &Shipping,
    tenant: &str,
    cost: usize,
    work: Work,
) -> Result<consign::Response, Closed> {
    let queue = match handle {
        Handle::Queue(queue) => queue.upgrade().ok_or(Closed)?,
        Handle::Direct => return Ok(work(shipping)),
    };
    let (answer, answered) = tokio::sync::oneshot::channel();
    queue.submit(tenant, Job::Work { cost, work }, answer)?;
    drop(queue);
    answered.blocking_recv().map_err(|_| Closed)
}

impl Drop for Writes {
    fn drop(&mut self) {
        if let Writes::Queue(queue) = self {
            queue.lock().closed = true;
            queue.ready.notify_all();
        }
    }
}

/// The queue of a new writer: the senders' side, and the queue for [`write_loop`].
pub(crate) fn queue() -> (Writes, Arc<Queue>) {
    let queue = Arc::new(Queue { state: Mutex::new(State { tasks: Fair::default(), closed: false }), ready: Condvar::new() });
    (Writes::Queue(Arc::clone(&queue)), queue)
}

/// The writer thread: takes the next group of queued writes (see the module docs), runs
/// them with one commit, answers them and tells the checkpointer; until the queue is
/// closed and empty.
pub(crate) fn write_loop(shipping: &Shipping, queue: &Queue, committed: &std::sync::mpsc::SyncSender<()>) {
    loop {
        let group = {
            let mut state = queue.lock();
            while state.tasks.is_empty() && !state.closed {
                state = queue.ready.wait(state).unwrap_or_else(PoisonError::into_inner);
            }
            if state.tasks.is_empty() {
                return;
            }
            state.tasks.group(MAX_GROUP, |task| task.job.cost())
        };
        let (jobs, answers): (Vec<Job>, Vec<_>) = group.into_iter().map(|task| (task.job, task.answer)).unzip();
        let count = jobs.len();
        let answered = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            shipping.commit_together(|| jobs.into_iter().map(|job| job.run(shipping)).collect::<Vec<_>>())
        }));
        let responses = match answered {
            Ok(Ok(responses)) => responses,
            Ok(Err(e)) => vec![consign::Response::error(&e); count],
            Err(_) => vec![consign::Response::error(&failed()); count],
        };
        for (answer, response) in answers.into_iter().zip(responses) {
            // A client that went away is not waiting for its answer.
            let _ = answer.send(response);
        }
        // Full: a checkpoint is due already and will see this group too.
        let _ = committed.try_send(());
    }
}

/// The error of a request whose work failed unexpectedly.
pub(crate) fn failed() -> Error {
    Error::internal("The service failed on this request. Please report it.")
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "test code: a panic is a failed test")]

    use super::*;

    /// The groups of `fair` until it is empty, each as `tenant:item` names.
    fn groups(fair: &mut Fair<(&'static str, usize)>, budget: usize) -> Vec<Vec<String>> {
        let mut out = Vec::new();
        while !fair.is_empty() {
            out.push(fair.group(budget, |(_, cost)| *cost).into_iter().map(|(name, _)| name.to_string()).collect());
        }
        out
    }

    /// A tenant with many writes queued first does not keep another's one write waiting
    /// behind them: groups take one of each tenant in turn.
    #[test]
    fn groups_take_one_write_of_each_tenant_in_turn() {
        let mut fair = Fair::default();
        for name in ["a1", "a2", "a3", "a4", "a5"] {
            fair.push("A", (name, 1));
        }
        fair.push("B", ("b1", 1));
        fair.push("C", ("c1", 1));
        fair.push("C", ("c2", 1));
        assert_eq!(groups(&mut fair, 4), [vec!["a1", "b1", "c1", "a2"], vec!["c2", "a3", "a4", "a5"]]);
    }

    /// A group stops at the write that does not fit its budget, and that tenant goes
    /// first in the next group; a write larger than the budget makes a group alone.
    #[test]
    fn groups_are_bounded_by_cost_and_a_tenant_keeps_its_turn() {
        let mut fair = Fair::default();
        fair.push("A", ("a-big", 60));
        fair.push("A", ("a-big2", 60));
        fair.push("B", ("b1", 1));
        fair.push("C", ("c-huge", 100));
        fair.push("B", ("b2", 1));
        assert_eq!(groups(&mut fair, 64), [vec!["a-big", "b1"], vec!["c-huge"], vec!["a-big2", "b2"]]);
    }

    /// A tenant that comes back after its queue emptied joins the end of the ring.
    #[test]
    fn a_tenant_whose_queue_emptied_joins_the_end_of_the_ring() {
        let mut fair = Fair::default();
        fair.push("A", ("a1", 1));
        fair.push("B", ("b1", 1));
        assert_eq!(fair.group(1, |(_, c)| *c).len(), 1);
        fair.push("A", ("a2", 1));
        fair.push("C", ("c1", 1));
        assert_eq!(groups(&mut fair, 8), [vec!["b1", "a2", "c1"]]);
    }
}
