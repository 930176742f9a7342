package dev.sendlog.tools.loadtest;

import com.codahale.metrics.MetricRegistry;
import dev.sendlog.service.config.GatewaySettings;
import dev.sendlog.service.config.SmppSettings;
import dev.sendlog.service.send.provider.Submit;
import dev.sendlog.service.send.provider.SubmitOutcome;
import dev.sendlog.service.send.provider.smpp.SmppGateway;
import dev.sendlog.simulator.smpp.SmscConfig;
import dev.sendlog.simulator.smpp.SmscReceipts;
import dev.sendlog.simulator.smpp.SmscSimulator;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The SMPP throughput benchmark of issue 28: one SMPP gateway (its binds, windows and submit path, as a send worker
 * calls it) against the SMSC simulator answering each {@code submit_sm} after {@code latencyMs}, with more callers than
 * window slots, so that the window is the wall. For each window size it prints the accepted submits per second against
 * the bound window x sessions / latency (target: within 10% of it until the CPU is the wall), and the CPU the process
 * (gateway and simulator together) used per 1,000 submits. The pipeline around the gateway is not in it: its figures
 * are in scripts/bench.
 */
public final class SmppBench {
    private final int latencyMs;
    private final int seconds;
    private final List<int[]> cases; // {sessions, window}

    /** How long storing a receipt takes (a commit), or below 0: the SMSC sends no receipts. */
    private final int receiptStoreMs;

    public SmppBench(int latencyMs, int seconds, List<int[]> cases, int receiptStoreMs) {
        this.latencyMs = latencyMs;
        this.seconds = seconds;
        this.cases = cases;
        this.receiptStoreMs = receiptStoreMs;
    }

    public void run(PrintStream out) throws Exception {
        out.printf(
                Locale.ROOT,
                "SMPP gateway throughput: SMSC latency %d ms, %d s measured per case (after 3 s of warm-up), %s%n",
                latencyMs,
                seconds,
                receiptStoreMs < 0
                        ? "no receipts"
                        : "a receipt for every submit, each taking " + receiptStoreMs + " ms to store");
        out.println("| sessions | window | callers | accepted/s | bound/s | ratio | CPU ms per 1,000 | other outcomes "
                + "| receipts stored/s |");
        out.println("|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        for (int[] c : cases) {
            runCase(out, c[0], c[1]);
        }
    }

    private void runCase(PrintStream out, int sessions, int window) throws Exception {
        SmscConfig smscConfig = SmscConfig.defaults().toBuilder()
                .latencyMs(latencyMs)
                .receipts(SmscReceipts.FINAL)
                .receiptDelayMs(0)
                .build();
        if (receiptStoreMs < 0) {
            smscConfig = smscConfig.toBuilder().receipts(SmscReceipts.NONE).build();
        }
        try (SmscSimulator smsc = SmscSimulator.start(smscConfig, 0)) {
            GatewaySettings g = new GatewaySettings();
            g.type = "smpp";
            g.requestTimeoutMs = 10_000;
            g.smpp = new SmppSettings();
            g.smpp.port = smsc.port();
            g.smpp.systemId = smscConfig.systemId();
            g.smpp.password = smscConfig.password();
            g.smpp.sessions = sessions;
            g.smpp.window = window;
            AtomicLong receipts = new AtomicLong();
            SmppGateway gateway = new SmppGateway(
                    "bench",
                    g,
                    body -> {
                        if (receiptStoreMs > 0) {
                            java.util.concurrent.locks.LockSupport.parkNanos(receiptStoreMs * 1_000_000L);
                        }
                        receipts.incrementAndGet();
                    },
                    new MetricRegistry());
            gateway.start();
            long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (gateway.bound() < sessions && System.nanoTime() < until) {
                java.util.concurrent.locks.LockSupport.parkNanos(10_000_000L);
            }
            if (gateway.bound() < sessions) {
                throw new IllegalStateException("the binds did not come up: " + gateway.lastBindError());
            }
            int callers = sessions * window * 2;
            AtomicLong accepted = new AtomicLong();
            AtomicLong other = new AtomicLong();
            AtomicLong counting = new AtomicLong(0); // 1 while measuring
            long end = System.nanoTime() + Duration.ofSeconds(3L + seconds).toNanos();
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < callers; i++) {
                int caller = i;
                threads.add(Thread.ofVirtual().start(() -> {
                    long n = 0;
                    while (System.nanoTime() < end) {
                        SubmitOutcome o = gateway.submit(new Submit(
                                "+4915" + String.format("%09d", caller * 1_000_000L + n++),
                                "bench message " + n,
                                null,
                                null,
                                "key",
                                "Bench",
                                null));
                        if (counting.get() == 1) {
                            (o instanceof SubmitOutcome.Accepted ? accepted : other).incrementAndGet();
                        }
                    }
                }));
            }
            Thread.sleep(3_000); // warm-up: binds full, JIT done
            double cpuBefore = cpuSeconds();
            long receiptsBefore = receipts.get();
            long t0 = System.nanoTime();
            counting.set(1);
            Thread.sleep(seconds * 1_000L);
            counting.set(0);
            long t1 = System.nanoTime();
            double cpu = cpuSeconds() - cpuBefore;
            double receiptsPerSecond = (receipts.get() - receiptsBefore) / ((t1 - t0) / 1e9);
            for (Thread t : threads) {
                t.join();
            }
            gateway.close();
            double perSecond = accepted.get() / ((t1 - t0) / 1e9);
            double bound = sessions * window * 1000.0 / latencyMs;
            out.printf(
                    Locale.ROOT,
                    "| %d | %d | %d | %.1f | %.1f | %.2f | %.0f | %d | %.1f |%n",
                    sessions,
                    window,
                    callers,
                    perSecond,
                    bound,
                    perSecond / bound,
                    accepted.get() == 0 ? 0 : cpu * 1000 * 1000 / accepted.get(),
                    other.get(),
                    receiptsPerSecond);
        }
    }

    private static double cpuSeconds() {
        return ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os
                ? os.getProcessCpuTime() / 1e9
                : Double.NaN;
    }
}
