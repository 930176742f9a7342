package dev.sendlog.service.badinput;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.core.AppenderBase;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.LoggerFactory;

/**
 * Catches what the service logs as a failure while bad input runs through it: every ERROR, and every WARN of ours
 * that carries an exception or says something failed. An exception the service swallowed (answered or retried,
 * but logged) shows up here even when every answer looked fine. Attach after the service started, because
 * Dropwizard resets logging at start.
 */
final class LogWatch extends AppenderBase<ILoggingEvent> {
    private final List<String> seen = new ArrayList<>();

    static LogWatch attach() {
        LogWatch watch = new LogWatch();
        LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
        watch.setContext(context);
        watch.setName("bad-input-log-watch");
        watch.start();
        context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).addAppender(watch);
        return watch;
    }

    void detach() {
        LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
        Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        root.detachAppender(this);
        stop();
    }

    @Override
    protected synchronized void append(ILoggingEvent e) {
        boolean ours = e.getLoggerName().startsWith("dev.sendlog");
        boolean failed = e.getLevel().isGreaterOrEqual(Level.ERROR)
                || (ours
                        && e.getLevel() == Level.WARN
                        && (e.getThrowableProxy() != null || e.getMessage().contains("failed")));
        if (failed && seen.size() < 50) {
            IThrowableProxy t = e.getThrowableProxy();
            seen.add(e.getLevel() + " " + e.getLoggerName() + ": " + e.getFormattedMessage()
                    + (t == null
                            ? ""
                            : " / " + t.getClassName() + ": " + t.getMessage()
                                    + (t.getCause() == null
                                            ? ""
                                            : " / caused by " + t.getCause().getClassName() + ": "
                                                    + t.getCause().getMessage())));
        }
    }

    synchronized List<String> failures() {
        return List.copyOf(seen);
    }
}
