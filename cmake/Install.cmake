# cmake --install: headers (hand-written and generated), libraries, tools,
# the plugin, the Python package and a RecurrenceConfig.cmake for
# find_package(Recurrence).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.h" PATTERN "*.td")
install(DIRECTORY ${PROJECT_BINARY_DIR}/include/
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.inc")

install(TARGETS RecurrenceIR RecurrenceTransforms RecurrencePipelines
                RecurrenceRuntime Recurrence RecurrenceCAPIDialect
  EXPORT RecurrenceTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS RecurrencePlugin LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS recurrence-opt recurrence-run recurrence-bench
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

install(EXPORT RecurrenceTargets NAMESPACE Recurrence::
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Recurrence)
configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/RecurrenceConfig.cmake.in
  ${PROJECT_BINARY_DIR}/RecurrenceConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Recurrence
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_BINDIR)
install(FILES ${PROJECT_BINARY_DIR}/RecurrenceConfig.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Recurrence)
