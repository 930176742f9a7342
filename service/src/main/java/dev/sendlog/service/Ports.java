package dev.sendlog.service;

import org.eclipse.jetty.server.NetworkConnector;
import org.eclipse.jetty.server.Server;

/** The ports Jetty actually bound (they may have been chosen by the OS). */
final class Ports {
    private Ports() {}

    static int application(Server server) {
        return port(server, "application");
    }

    static int admin(Server server) {
        return port(server, "admin");
    }

    private static int port(Server server, String name) {
        for (var connector : server.getConnectors()) {
            if (connector instanceof NetworkConnector network
                    && connector.getName() != null
                    && connector.getName().startsWith(name)) {
                return network.getLocalPort();
            }
        }
        return -1;
    }
}
