package dev.sendlog.service.http;

import com.codahale.metrics.Counter;
import com.codahale.metrics.MetricRegistry;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpHeaderValue;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.NanoTime;
import org.eclipse.jetty.util.thread.Scheduler;

/**
 * Receives a request's body before the application sees the request, without a thread: the body's bytes are taken as
 * they arrive (Jetty calls back when there are more), and the request goes on to the servlets only once the body is
 * complete. The servlets (Jersey, the direct paths) read bodies blocking; without this, a client that sends its
 * headers and then its body slowly, or never, held a request thread the whole time, and a few hundred of them held
 * every thread. Here they hold a connection and a few buffers, and ordinary requests are served meanwhile.
 *
 * <p>A body that does not keep up with {@code http.minBodyBytesPerSecond}, counted from the request's start after
 * {@code http.bodyGrace}, or that stops for the connector's {@code idleTimeout}, is answered 408 (problem+json,
 * by the server's error handler) and its connection closed; nothing reaches the application and nothing is logged as
 * an error. Counted in {@code http.body.timeouts}; {@code http.body.receiving} is how many bodies are arriving now.
 *
 * <p>Not taken this way, and handed on at once: a request without a body; one whose Content-Length is over
 * {@code maxBytes} (the application answers 413 without reading it); and one the application refuses without reading
 * its body ({@code refusedWithoutBody}: a missing or unknown key, a callback without a well-formed signature), so it
 * is answered at once rather than after its body (and an {@code Expect: 100-continue} client never sends it). A
 * chunked body that grows past {@code maxBytes} is handed on with what has arrived, which is already too large.
 */
public final class EagerBody extends Handler.Wrapper {
    private final long maxBytes;
    private final long minBytesPerSecond;
    private final long graceNanos;
    private final Predicate<Request> refusedWithoutBody;
    private final Counter timeouts;
    private final AtomicInteger receiving = new AtomicInteger();

    public EagerBody(
            Handler next,
            long maxBytes,
            long minBytesPerSecond,
            Duration grace,
            Predicate<Request> refusedWithoutBody,
            MetricRegistry metrics) {
        super(next);
        this.maxBytes = maxBytes;
        this.minBytesPerSecond = minBytesPerSecond;
        this.graceNanos = grace.toNanos();
        this.refusedWithoutBody = refusedWithoutBody;
        this.timeouts = metrics.counter("http.body.timeouts");
        metrics.gauge("http.body.receiving", () -> receiving::get);
    }

    /**
     * Puts an {@code EagerBody} in front of the server's handlers (both ports) as the server starts, when Dropwizard
     * has built them. {@code grace}: how long a body may take before the data rate ({@code minBytesPerSecond}, 0 for
     * none) counts.
     */
    public static void install(
            io.dropwizard.core.setup.Environment env,
            long maxBytes,
            long minBytesPerSecond,
            Duration grace,
            Predicate<Request> refusedWithoutBody) {
        MetricRegistry metrics = env.metrics();
        env.lifecycle().addEventListener(new org.eclipse.jetty.util.component.LifeCycle.Listener() {
            @Override
            public void lifeCycleStarting(org.eclipse.jetty.util.component.LifeCycle event) {
                if (event instanceof org.eclipse.jetty.server.Server server
                        && !(server.getHandler() instanceof EagerBody)) {
                    server.setHandler(new EagerBody(
                            server.getHandler(), maxBytes, minBytesPerSecond, grace, refusedWithoutBody, metrics));
                }
            }
        });
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        Handler next = getHandler();
        if (next == null) {
            return false;
        }
        long length = request.getLength();
        boolean body = length > 0
                || (length < 0
                        && request.getHeaders()
                                .contains(HttpHeader.TRANSFER_ENCODING, HttpHeaderValue.CHUNKED.asString()));
        if (!body || length > maxBytes || refusedWithoutBody.test(request)) {
            return next.handle(request, response, callback);
        }
        new Receiver(next, request, response, callback).start();
        return true;
    }

    /** One request's body on its way in. */
    private final class Receiver implements Runnable {
        private final Handler next;
        private final Request request;
        private final Response response;
        private final Callback callback;
        private final long startNanos;
        private final Deque<Content.Chunk> chunks = new ArrayDeque<>();
        /** Set once: the request went on, or was refused. */
        private final AtomicBoolean settled = new AtomicBoolean();

        private long bytes;
        private Scheduler.Task check;

        Receiver(Handler next, Request request, Response response, Callback callback) {
            this.next = next;
            this.request = request;
            this.response = response;
            this.callback = callback;
            this.startNanos = request.getBeginNanoTime();
        }

        void start() {
            receiving.incrementAndGet();
            run();
        }

        /** Takes what has arrived; Jetty calls it again when there is more. */
        @Override
        public void run() {
            while (true) {
                Content.Chunk chunk = request.read();
                if (chunk == null) {
                    if (!settled.get()) {
                        // The body is still on its way (usually it came with the headers, and no clock is needed).
                        boolean firstWait;
                        long received;
                        synchronized (this) {
                            firstWait = check == null;
                            received = bytes;
                        }
                        if (firstWait) {
                            scheduleCheck(received);
                        }
                        request.demand(this);
                    }
                    return;
                }
                if (Content.Chunk.isFailure(chunk) && !chunk.isLast()) {
                    // A transient failure is the idle timeout: the body stopped.
                    refuse("the request body stopped arriving for longer than the idle timeout");
                    return;
                }
                boolean complete;
                long received;
                synchronized (this) {
                    if (settled.get()) {
                        chunk.release();
                        return;
                    }
                    chunks.add(chunk);
                    bytes += chunk.remaining();
                    received = bytes;
                    complete = chunk.isLast();
                }
                // A fatal failure (the client went away, broken chunking) goes on too: the application meets it as it
                // would have reading the body itself. A chunked body over the limit goes on to be refused as too large.
                if (complete || received > maxBytes) {
                    proceed();
                    return;
                }
            }
        }

        private void proceed() {
            if (!settled.compareAndSet(false, true)) {
                return;
            }
            done();
            Replay replay = new Replay(request, chunks, callback);
            try {
                if (!next.handle(replay, response, replay)) {
                    Response.writeError(replay, response, replay, 404);
                }
            } catch (Throwable t) {
                Response.writeError(replay, response, replay, t);
            }
        }

        private void refuse(String why) {
            if (!settled.compareAndSet(false, true)) {
                return;
            }
            done();
            timeouts.inc();
            synchronized (this) {
                chunks.forEach(Content.Chunk::release);
                chunks.clear();
            }
            response.getHeaders().put(HttpHeader.CONNECTION, HttpHeaderValue.CLOSE.asString());
            Response.writeError(request, response, callback, 408, why);
        }

        private void done() {
            receiving.decrementAndGet();
            Scheduler.Task task;
            synchronized (this) {
                task = check;
            }
            if (task != null) {
                task.cancel();
            }
        }

        /**
         * Checks the data rate when the bytes received so far ({@code received}) stop being enough: after the grace
         * period, the body must have brought {@code minBytesPerSecond} for every second since the request began.
         */
        private void scheduleCheck(long received) {
            if (minBytesPerSecond <= 0) {
                return; // the idle timeout alone bounds a stalled body
            }
            long dueNanos = graceNanos + (received + 1) * TimeUnit.SECONDS.toNanos(1) / minBytesPerSecond;
            long delay = Math.max(1, dueNanos - NanoTime.since(startNanos));
            Scheduler.Task task =
                    request.getComponents().getScheduler().schedule(this::checkRate, delay, TimeUnit.NANOSECONDS);
            synchronized (this) {
                check = task;
            }
        }

        private void checkRate() {
            if (settled.get()) {
                return;
            }
            long elapsed = NanoTime.since(startNanos);
            long required = Math.max(0, elapsed - graceNanos) / 1000 * minBytesPerSecond / 1_000_000;
            long received;
            synchronized (this) {
                received = bytes;
            }
            if (received < required) {
                request.getContext()
                        .execute(() -> refuse(
                                "the request body arrived slower than " + minBytesPerSecond + " bytes per second"));
            } else {
                scheduleCheck(received);
            }
        }
    }

    /** The request with its body already received: the chunks are read first, then (nothing more) the request's own. */
    private static final class Replay extends Request.Wrapper implements Callback {
        private final Deque<Content.Chunk> chunks;
        private final Callback callback;

        Replay(Request request, Deque<Content.Chunk> chunks, Callback callback) {
            super(request);
            this.chunks = chunks;
            this.callback = callback;
        }

        @Override
        public Content.Chunk read() {
            synchronized (chunks) {
                Content.Chunk chunk = chunks.pollFirst();
                if (chunk != null) {
                    return chunk;
                }
            }
            return super.read();
        }

        @Override
        public void demand(Runnable demandCallback) {
            boolean ready;
            synchronized (chunks) {
                ready = !chunks.isEmpty();
            }
            if (ready) {
                getContext().execute(demandCallback);
            } else {
                super.demand(demandCallback);
            }
        }

        @Override
        public InvocationType getInvocationType() {
            return callback.getInvocationType();
        }

        private void release() {
            synchronized (chunks) {
                chunks.forEach(Content.Chunk::release);
                chunks.clear();
            }
        }

        @Override
        public void succeeded() {
            release();
            callback.succeeded();
        }

        @Override
        public void failed(Throwable x) {
            release();
            callback.failed(x);
        }
    }
}
