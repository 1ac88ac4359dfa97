#include "process_age.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

double railyard_process_age_ms(void) {
  char stat[4096];
  FILE* file = fopen("/proc/self/stat", "r");
  if (file == NULL) {
    return -1;
  }
  const size_t got = fread(stat, 1, sizeof(stat) - 1, file);
  fclose(file);
  stat[got] = '\0';
  /* The command name (field 2) may hold spaces and parentheses: fields
   * resume after the last ')' with field 3; starttime is field 22. */
  const char* close = strrchr(stat, ')');
  if (close == NULL) {
    return -1;
  }
  const char* cursor = close + 1; /* the space before field 3 */
  for (int skipped = 0; skipped < 19; ++skipped) {
    cursor = strchr(cursor + 1, ' ');
    if (cursor == NULL) {
      return -1;
    }
  }
  char* end = NULL;
  const unsigned long long start_ticks = strtoull(cursor + 1, &end, 10);
  const long ticks_per_second = sysconf(_SC_CLK_TCK);
  struct timespec now;
  if (end == cursor + 1 || ticks_per_second <= 0 || clock_gettime(CLOCK_BOOTTIME, &now) != 0) {
    return -1;
  }
  return (double)now.tv_sec * 1e3 + (double)now.tv_nsec / 1e6 -
         (double)start_ticks * 1e3 / (double)ticks_per_second;
}
