package dev.sendlog.service;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
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

    @Test
    void noTwoPackagesOfTheServiceDependOnEachOther() {
        slices().matching("dev.sendlog.service.(*)..").should().beFreeOfCycles().check(SERVICE);
    }

    @Test
    void thePipelineBelowTheApiKnowsNothingOfHttpServing() {
        noClasses()
                .that()
                .resideInAnyPackage(
                        "..service.core..",
                        "..service.db..",
                        "..service.dispatch..",
                        "..service.receipts..",
                        "..service.reconcile..",
                        "..service.queue..",
                        "..service.provider..",
                        "..service.webhooks..")
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
