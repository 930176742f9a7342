package dev.sendlog.service.badinput;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.LoggerFactory;

/** The access log's lines (logger {@code dev.sendlog.access}, at INFO for the while) written during an action. */
final class AccessLines extends AppenderBase<ILoggingEvent> {
    private final List<String> lines = new ArrayList<>();

    static List<String> during(Runnable action) {
        LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
        Logger logger = context.getLogger("dev.sendlog.access");
        Level before = logger.getLevel();
        AccessLines appender = new AccessLines();
        appender.setContext(context);
        appender.start();
        logger.addAppender(appender);
        logger.setLevel(Level.INFO);
        try {
            action.run();
            // A line is written after the answer has left (the filter logs once the chain returns): wait until no more
            // come.
            int seen = -1;
            long deadline = System.nanoTime() + 3_000_000_000L;
            while (appender.lines().size() != seen && System.nanoTime() < deadline) {
                seen = appender.lines().size();
                sleep(300);
            }
        } finally {
            logger.setLevel(before);
            logger.detachAppender(appender);
            appender.stop();
        }
        return appender.lines();
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    protected synchronized void append(ILoggingEvent e) {
        lines.add(e.getFormattedMessage());
    }

    synchronized List<String> lines() {
        return List.copyOf(lines);
    }
}
