package dev.sendlog.service;

import io.dropwizard.core.setup.Environment;
import org.eclipse.jetty.server.ConnectionFactory;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.component.ContainerLifeCycle;
import org.eclipse.jetty.util.component.LifeCycle;

/**
 * Makes Jetty's per-connection header cache compare values case-sensitively. Jetty reuses a header it has seen on a
 * keep-alive connection when a later one matches it ignoring case, and by default hands the application the earlier
 * value: after {@code Authorization: Bearer client-b}, a request with {@code Bearer CLIENT-B} on the same connection
 * was authenticated as {@code client-b}. Header values (keys above all) are compared exactly.
 */
final class CaseSensitiveHeaderCache {
    private CaseSensitiveHeaderCache() {}

    static void install(Environment env) {
        env.lifecycle().addEventListener(new LifeCycle.Listener() {
            @Override
            public void lifeCycleStarting(LifeCycle event) {
                if (event instanceof Server server) {
                    for (Connector connector : server.getConnectors()) {
                        for (ConnectionFactory factory : connector.getConnectionFactories()) {
                            caseSensitive(factory);
                        }
                    }
                }
            }
        });
    }

    /** Dropwizard wraps the HTTP connection factory in one that times connections; the wrapped one is its bean. */
    private static void caseSensitive(ConnectionFactory factory) {
        if (factory instanceof HttpConnectionFactory http) {
            http.getHttpConfiguration().setHeaderCacheCaseSensitive(true);
        } else if (factory instanceof ContainerLifeCycle wrapper) {
            wrapper.getBeans(HttpConnectionFactory.class).forEach(CaseSensitiveHeaderCache::caseSensitive);
        }
    }
}
