// Compiled only to produce the precompiled header the test executables share
// (cmake/TestCode.cmake); it defines nothing.
