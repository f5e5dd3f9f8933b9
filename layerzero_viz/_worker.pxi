# ------------------------------------------------------------------------------------------- worker
# One native thread that runs GIL-free jobs (the scan job) while the caller tokenises.  A Python thread pool
# cost ≈ 70 µs per hand-off on these machines (a futex wake each way, plus the GIL), more than a short
# prompt's whole scan; this thread instead polls for a short while before it sleeps, and the caller polls
# for the result before it sleeps, so back-to-back annotations hand over in ≈ 2-3 µs (an empty job, run here:
# ≈ 1.2 µs; on the worker: ≈ 3-4 µs).  A caller that finds its job not yet started when it needs the results
# (the worker was asleep, or its core busy elsewhere) takes it back and runs it itself: never slower than
# scanning inline by more than the hand-off.
# Polling is bounded (0.2 ms after each job, 5 ms for a result: ``worker_spin``), then both sides
# block on condition variables: an idle process does not keep a core busy.
cdef extern from * nogil:
    """
    #include <atomic>
    #include <chrono>
    #include <condition_variable>
    #include <mutex>
    #include <new>
    #include <thread>
    #include <pthread.h>
    #if defined(__x86_64__) || defined(__i386__)
    #include <immintrin.h>
    static inline void lz_pause(void) { _mm_pause(); }
    #elif defined(__aarch64__)
    static inline void lz_pause(void) { __asm__ __volatile__("yield"); }
    #else
    static inline void lz_pause(void) { }
    #endif

    typedef void (*lz_task_fn)(void*);
    static std::atomic<long long> lz_idle_spin_ns{200000};   /* after a job, poll 0.2 ms for the next one */
    static std::atomic<long long> lz_wait_spin_ns{5000000};   /* poll up to 5 ms for a result, then sleep */

    static std::atomic<bool> lz_hold{false};   /* tests only: the worker takes no job while set */

    enum { LZ_IDLE = 0, LZ_CLAIMED = 1, LZ_POSTED = 2, LZ_RUNNING = 3, LZ_DONE = 4 };

    struct LzWorker {
        std::atomic<int> state{LZ_IDLE};
        std::atomic<bool> worker_sleeping{false};
        std::atomic<bool> caller_sleeping{false};
        lz_task_fn fn = nullptr;
        void* arg = nullptr;
        std::mutex m;
        std::condition_variable posted, done;
    };

    static LzWorker* lz_the_worker = nullptr;
    static std::mutex lz_worker_make;

    static inline long long lz_now_ns(void) {
        return std::chrono::duration_cast<std::chrono::nanoseconds>(
            std::chrono::steady_clock::now().time_since_epoch()).count();
    }

    static void lz_worker_loop(LzWorker* w) {
        for (;;) {
            long long deadline = lz_now_ns() + lz_idle_spin_ns.load();
            unsigned spins = 0;
            while (w->state.load(std::memory_order_acquire) != LZ_POSTED || lz_hold.load()) {
                lz_pause();
                if ((++spins & 1023) == 0) std::this_thread::yield();  /* room for others on a busy machine */
                if ((spins & 255) == 0 && lz_now_ns() > deadline) {
                    std::unique_lock<std::mutex> lock(w->m);
                    w->worker_sleeping.store(true);
                    w->posted.wait(lock, [w] { return w->state.load() == LZ_POSTED && !lz_hold.load(); });
                    w->worker_sleeping.store(false);
                }
            }
            int posted = LZ_POSTED;
            if (!w->state.compare_exchange_strong(posted, LZ_RUNNING)) continue;  /* its caller took it back */
            w->fn(w->arg);
            w->state.store(LZ_DONE);
            if (w->caller_sleeping.load()) {
                std::lock_guard<std::mutex> lock(w->m);
                w->done.notify_one();
            }
        }
    }

    /* A forked child has no worker thread: it makes its own on first use (the parent's is left as it was). */
    static void lz_worker_forget(void) {
        lz_the_worker = nullptr;
        new (&lz_worker_make) std::mutex();  /* another thread may have held it at the fork */
    }

    static LzWorker* lz_worker(void) {
        std::lock_guard<std::mutex> lock(lz_worker_make);
        if (lz_the_worker == nullptr) {
            static bool registered = false;
            if (!registered) {
                pthread_atfork(nullptr, nullptr, lz_worker_forget);
                registered = true;
            }
            LzWorker* w = new LzWorker();
            try {
                std::thread(lz_worker_loop, w).detach();
            } catch (...) {
                delete w;
                return nullptr;
            }
            lz_the_worker = w;
        }
        return lz_the_worker;
    }

    /* Hand fn(arg) to the worker: 1, or 0 when it is busy with another caller's job (run it yourself). */
    static int lz_post(LzWorker* w, lz_task_fn fn, void* arg) {
        int idle = LZ_IDLE;
        if (w == nullptr || !w->state.compare_exchange_strong(idle, LZ_CLAIMED)) return 0;
        w->fn = fn;
        w->arg = arg;
        w->state.store(LZ_POSTED);
        if (w->worker_sleeping.load()) {
            std::lock_guard<std::mutex> lock(w->m);
            w->posted.notify_one();
        }
        return 1;
    }

    /* Take back a job the worker has not started (it was asleep, or its core busy): 1, and the caller runs it
       itself; 0 when the worker has it (then lz_wait).  Either way the worker is free for the next job. */
    static int lz_reclaim(LzWorker* w) {
        int posted = LZ_POSTED;
        return w->state.compare_exchange_strong(posted, LZ_IDLE);
    }

    /* Wait for the job posted by this caller, then free the worker for the next one. */
    static void lz_wait(LzWorker* w) {
        long long deadline = lz_now_ns() + lz_wait_spin_ns.load();
        unsigned spins = 0;
        while (w->state.load(std::memory_order_acquire) != LZ_DONE) {
            lz_pause();
            if ((++spins & 1023) == 0) std::this_thread::yield();
            if ((spins & 255) == 0 && lz_now_ns() > deadline) {
                std::unique_lock<std::mutex> lock(w->m);
                w->caller_sleeping.store(true);
                w->done.wait(lock, [w] { return w->state.load() == LZ_DONE; });
                w->caller_sleeping.store(false);
            }
        }
        w->state.store(LZ_IDLE);
    }

    static void lz_set_hold(bool hold) { lz_hold.store(hold); }

    static void lz_set_spin(long long idle_ns, long long wait_ns) {
        lz_idle_spin_ns.store(idle_ns);
        lz_wait_spin_ns.store(wait_ns);
    }
    """
    ctypedef void (*lz_task_fn)(void*) noexcept nogil
    void lz_set_spin(long long idle_ns, long long wait_ns)
    void lz_set_hold(bint hold)
    cppclass LzWorker:
        pass
    LzWorker* lz_worker()
    bint lz_post(LzWorker* w, lz_task_fn fn, void* arg)
    bint lz_reclaim(LzWorker* w)
    void lz_wait(LzWorker* w)


def worker_spin(long long idle_ns, long long wait_ns):
    """How long the worker polls for a next job, and a caller for a result, before sleeping (ns)."""
    lz_set_spin(idle_ns, wait_ns)


def _worker_hold(bint hold):
    """Tests only: while held, the worker takes no job (each caller takes its own back and runs it)."""
    lz_set_hold(hold)
