package dev.sendlog.service.queue;

import com.codahale.metrics.Counter;
import com.codahale.metrics.MetricRegistry;
import io.dropwizard.lifecycle.Managed;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads one job type's stream and runs its jobs on virtual threads (or platform threads of its own), at most as
 * many at once as its semaphore allows. Each job type has its own consumer, executor and connections; only the
 * measuring switch {@code sharedWorkerBound} makes two share a semaphore. Entries a crashed consumer left
 * unacknowledged are reclaimed after {@code reclaimIdle}. The batch handler must hand every entry to
 * {@link #dispatch}, {@link #dispatchBatch} or {@link #finished}, which release its permit exactly once.
 *
 * <p>Single jobs are acknowledged together: a finished job queues its entry id and one thread acknowledges what has
 * queued (an {@code XACK} and an {@code XDEL} for all of them) every {@value #ACK_LINGER_MS} ms at most, instead of two
 * commands and a wait per job. An acknowledgement is no part of the guarantee (the outcome is in the log before it);
 * one lost to a crash only makes the entry come back as a stale job, which is dropped.
 */
public final class StreamConsumer implements Managed {
    private static final Logger LOG = LoggerFactory.getLogger(StreamConsumer.class);
    private static final Duration READ_BLOCK = Duration.ofMillis(500);
    private static final long ACK_LINGER_MS = 2;
    private static final int MAX_ACK_BATCH = 1000;

    private final String name;
    private final JobStream stream;
    private final Semaphore permits;
    private final Duration reclaimIdle;
    private final ExecutorService jobs;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final Counter failed;
    private Consumer<List<StreamEntry>> handler;
    private volatile boolean running;
    private volatile boolean paused;
    private volatile java.util.concurrent.CountDownLatch idle = new java.util.concurrent.CountDownLatch(1);
    private Thread loop;
    private final java.util.concurrent.LinkedBlockingQueue<String> toAck =
            new java.util.concurrent.LinkedBlockingQueue<>();
    private volatile boolean acking;
    private Thread acker;

    public StreamConsumer(
            String name, JobStream stream, Semaphore permits, Duration reclaimIdle, MetricRegistry metrics) {
        this(name, stream, permits, reclaimIdle, 0, metrics);
    }

    /**
     * With {@code platformThreads} above 0, jobs run on that many platform threads of their own instead of virtual
     * threads. Virtual threads of every job type share the JVM's carrier threads, so a job type that runs few, long
     * jobs (the callback worker's batches) is only truly apart from the hundreds of send jobs on threads of its own.
     */
    public StreamConsumer(
            String name,
            JobStream stream,
            Semaphore permits,
            Duration reclaimIdle,
            int platformThreads,
            MetricRegistry metrics) {
        this.name = name;
        this.stream = stream;
        this.permits = permits;
        this.reclaimIdle = reclaimIdle;
        this.jobs = platformThreads > 0
                ? Executors.newFixedThreadPool(
                        platformThreads,
                        Thread.ofPlatform().name(name + "-job-", 0).daemon(true).factory())
                : Executors.newThreadPerTaskExecutor(
                        Thread.ofVirtual().name(name + "-job-", 0).factory());
        this.failed = metrics.counter(name + ".jobs.failed");
        metrics.registerGauge(name + ".in.flight", inFlight::get);
    }

    /** The job type it reads ("send", "send-high", "callbacks"): the prefix of its metrics. */
    public String name() {
        return name;
    }

    /** Sets what to do with each read (the entries' permits are held until they are dispatched or finished). */
    public void onEntries(Consumer<List<StreamEntry>> handler) {
        this.handler = handler;
    }

    @Override
    public void start() {
        running = true;
        acking = true;
        stream.ensureGroup();
        acker = Thread.ofPlatform().name(name + "-acker").daemon(true).start(this::ackLoop);
        loop = Thread.ofPlatform().name(name + "-reader").daemon(true).start(this::readLoop);
    }

    @Override
    public void stop() throws InterruptedException {
        running = false;
        if (loop != null) {
            loop.join(TimeUnit.SECONDS.toMillis(5));
        }
        jobs.shutdown();
        if (!jobs.awaitTermination(30, TimeUnit.SECONDS)) {
            LOG.warn("{} jobs still running at shutdown; their entries stay pending and are reclaimed", name);
            jobs.shutdownNow();
        }
        acking = false; // the acker sends what is queued, then ends
        if (acker != null) {
            acker.join(TimeUnit.SECONDS.toMillis(5));
        }
    }

    /** Acknowledges the queued entry ids together, a short linger after the first, until stopped and drained. */
    private void ackLoop() {
        List<String> ids = new java.util.ArrayList<>();
        while (acking || !toAck.isEmpty()) {
            try {
                String first = toAck.poll(100, TimeUnit.MILLISECONDS);
                if (first == null) {
                    continue;
                }
                if (acking) {
                    Thread.sleep(ACK_LINGER_MS); // lets the jobs finishing meanwhile join this acknowledgement
                }
                ids.add(first);
                toAck.drainTo(ids, MAX_ACK_BATCH - 1);
                ackIds(ids);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } finally {
                ids.clear();
            }
        }
    }

    private void readLoop() {
        long nextReclaim = 0;
        while (running) {
            int held = 0;
            try {
                if (paused) {
                    idle.countDown();
                    pause();
                    continue;
                }
                permits.acquire();
                held = 1 + permits.drainPermits();
                List<StreamEntry> entries = List.of();
                if (System.nanoTime() >= nextReclaim) {
                    entries = stream.reclaim(reclaimIdle, held);
                    nextReclaim = System.nanoTime() + reclaimIdle.toNanos() / 4;
                }
                if (entries.isEmpty()) {
                    entries = stream.read(held, READ_BLOCK);
                }
                permits.release(held - entries.size());
                held = 0;
                if (!entries.isEmpty()) {
                    handler.accept(entries);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                permits.release(held);
                LOG.warn("reading the {} stream failed; retrying in 1 s: {}", name, e.toString());
                pause();
            }
        }
    }

    /**
     * Stops taking new jobs until {@link #resume} (jobs in flight finish); for draining a node. Returns once the
     * reader has stopped (a read in progress is handed out first).
     */
    public void pauseReading() {
        idle = new java.util.concurrent.CountDownLatch(1);
        paused = true;
        try {
            if (!idle.await(READ_BLOCK.toMillis() + 5_000, TimeUnit.MILLISECONDS)) {
                LOG.warn("{} reader did not stop within the wait; it stops after its current read", name);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    public void resume() {
        paused = false;
    }

    /** Waits up to {@code atMost} until no job runs (at shutdown, once reading has stopped); returns how many still do. */
    public int awaitIdle(java.time.Duration atMost) throws InterruptedException {
        long deadline = System.nanoTime() + atMost.toNanos();
        synchronized (inFlight) {
            while (inFlight.get() > 0) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    break;
                }
                inFlight.wait(Math.max(1, left / 1_000_000));
            }
            return inFlight.get();
        }
    }

    private void jobsEnded(int n) {
        if (inFlight.addAndGet(-n) == 0) {
            synchronized (inFlight) {
                inFlight.notifyAll();
            }
        }
    }

    /** Runs a job on its virtual thread; acknowledges the entry when the job says it is finished; releases its permit. */
    public void dispatch(StreamEntry entry, BooleanSupplier work) {
        inFlight.incrementAndGet();
        jobs.submit(() -> {
            try {
                if (work.getAsBoolean()) {
                    toAck.add(entry.id());
                }
            } catch (RuntimeException e) {
                failed.inc();
                LOG.error(
                        "{} job failed entry_id={} fields={}; the entry stays pending",
                        name,
                        entry.id(),
                        entry.fields(),
                        e);
            } finally {
                jobsEnded(1);
                permits.release();
            }
        });
    }

    /**
     * Runs one job over several entries on one of this consumer's threads (the callback worker decides a read's
     * callbacks together). The job returns the entries it finished; they are acknowledged in one call, the rest stay pending.
     * Every entry's permit is released when the job ends, whatever it returned or threw.
     */
    public void dispatchBatch(List<StreamEntry> entries, Function<List<StreamEntry>, Collection<StreamEntry>> work) {
        if (entries.isEmpty()) {
            return;
        }
        inFlight.addAndGet(entries.size());
        jobs.submit(() -> {
            try {
                ack(List.copyOf(work.apply(entries)));
            } catch (RuntimeException e) {
                failed.inc(entries.size());
                LOG.error(
                        "{} batch of {} jobs failed (first entry_id={}); the entries stay pending",
                        name,
                        entries.size(),
                        entries.get(0).id(),
                        e);
            } finally {
                jobsEnded(entries.size());
                permits.release(entries.size());
            }
        });
    }

    /** Acknowledges entries that need nothing more and releases their permits. */
    public void finished(List<StreamEntry> entries) {
        entries.forEach(e -> toAck.add(e.id()));
        permits.release(entries.size());
    }

    /**
     * Acknowledges an entry whose permit was already released (by {@link #abandoned}, or with the job that carried it
     * along): for a job type that keeps entries waiting in memory without holding a permit.
     */
    public void acknowledge(StreamEntry entry) {
        toAck.add(entry.id());
    }

    /** Releases the permits of entries left pending (a failure before they could be handled). */
    public void abandoned(List<StreamEntry> entries) {
        permits.release(entries.size());
    }

    private void ack(List<StreamEntry> entries) {
        ackIds(entries.stream().map(StreamEntry::id).toList());
    }

    private void ackIds(List<String> ids) {
        if (ids.isEmpty()) {
            return;
        }
        try {
            stream.ack(ids);
        } catch (RuntimeException e) {
            // Their outcomes are in the log; a later delivery of one is a stale job and is dropped then.
            LOG.warn("acknowledging {} {} entries failed: {}", ids.size(), name, e.toString());
        }
    }

    private void pause() {
        try {
            Thread.sleep(paused ? 100 : 1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running = false;
        }
    }
}
