package dev.sendlog.service;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The shape of the service's packages (issue 25), checked on its compiled classes so that it stays as it is: no cycle
 * between the packages under {@code dev.sendlog.service}. A package that needs another's type while that one needs
 * it back is one package spread over two, or an import running back up a floor; this test names the classes of every
 * such cycle. And the pipeline below the HTTP surface (the log, the accept path's core, publishing, sending, receipts,
 * reconciling, the queue) knows nothing of HTTP serving: the API's resources, filters and views call it, never the
 * other way round.
 */
class PackageGraphTest {
    private static final JavaClasses SERVICE = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.sendlog.service");

    /** The stages of a message's life. */
    private static final String[] STAGES = packages(
            "accept", "controls", "projection", "publish", "send", "timers", "receipts", "reconcile", "webhooks");
    /** The log: its store, appends and reads, and the counts of what was committed. */
    private static final String[] LOG = packages("log", "stats");

    private static String[] packages(String... names) {
        return Stream.of(names).map(n -> "..service." + n + "..").toArray(String[]::new);
    }

    private static String[] all(String[]... groups) {
        return Stream.of(groups).flatMap(Stream::of).toArray(String[]::new);
    }

    @Test
    void noTwoPackagesOfTheServiceDependOnEachOther() {
        slices().matching("dev.sendlog.service.(*)..").should().beFreeOfCycles().check(SERVICE);
    }

    @Test
    void thePipelineBelowTheApiKnowsNothingOfHttpServing() {
        noClasses()
                .that()
                .resideInAnyPackage(all(packages("db", "queue"), LOG, STAGES))
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "..service.resources..",
                        "..service.http..",
                        "..service.api..",
                        "jakarta.ws.rs..",
                        "jakarta.servlet..",
                        "org.eclipse.jetty..",
                        "org.glassfish.jersey..")
                .check(SERVICE);
    }

    /**
     * The floors of the service, each using only the floors below it: the infrastructure (configuration, pools, the
     * Redis streams, metrics, log lines, fault points); the log (its store, appends and reads, and the counts of what
     * was committed); the problem types; the stages of a message's life (accept, publish, send, timers, receipts,
     * reconcile, controls, projection, webhooks); and the surface (HTTP, auth, health, tasks, commands, lifecycle and
     * the wiring in the root package). A stage may use another stage (send reads the routes accept keeps): the slices
     * test above keeps those without a cycle.
     */
    @Test
    void noImportRunsBackUpAFloor() {
        layeredArchitecture()
                .consideringOnlyDependenciesInLayers()
                .layer("infrastructure")
                .definedBy(packages("config", "db", "queue", "metrics", "logging", "faults"))
                .layer("log")
                .definedBy(LOG)
                .layer("problems")
                .definedBy(packages("errors"))
                .layer("stages")
                .definedBy(STAGES)
                .layer("surface")
                .definedBy(all(
                        new String[] {"dev.sendlog.service"},
                        packages(
                                "api", "auth", "http", "resources", "health", "overview", "tasks", "cli", "lifecycle")))
                .whereLayer("surface")
                .mayNotBeAccessedByAnyLayer()
                .whereLayer("stages")
                .mayOnlyBeAccessedByLayers("surface")
                .whereLayer("problems")
                .mayOnlyBeAccessedByLayers("stages", "surface")
                .whereLayer("log")
                .mayOnlyBeAccessedByLayers("problems", "stages", "surface")
                .whereLayer("infrastructure")
                .mayOnlyBeAccessedByLayers("log", "problems", "stages", "surface")
                .check(SERVICE);
    }

    /**
     * sendlog.jar is the product: the simulators and the tools that test and measure it (chaos, load, benchmarks) are
     * not in it (the simulator is a test dependency of this module; tools/ depends on it, never the other way).
     */
    @Test
    void theProductCarriesNoSimulatorAndNoTool() {
        noClasses()
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("dev.sendlog.simulator..", "dev.sendlog.tools..", "dev.sendlog.bench..")
                .check(SERVICE);
    }
}
